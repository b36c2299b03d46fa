package io.dyno.core.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;

/**
 * When a read that has not been answered yet is also sent to the next replica (a hedged read): the
 * first answer wins, the other is dropped and counted. Hedging trades a little extra load for a
 * short tail when one node is slow or frozen; it applies to reads only (a write sent twice could
 * land out of order with another writer's), on either transport: on one that holds a thread until
 * the reply (pooled sockets) a hedged read's attempts run on the engine's threads while the caller
 * waits for the first answer.
 *
 * <p>Text forms (Archaius {@code dyno.<app>.connection.hedgeReads}): {@code off}; {@code after:<ms>}
 * (a fixed delay); {@code p99:<minMs>} (the node's recent 99th-percentile latency, never below
 * {@code minMs}, which also serves while the node has too few recent samples).
 */
public final class HedgePolicy {
  private static final HedgePolicy OFF = new HedgePolicy(false, 0);

  private final boolean nodeP99;
  private final long delayNanos; // fixed: the delay; p99: the floor

  private HedgePolicy(boolean nodeP99, long delayNanos) {
    this.nodeP99 = nodeP99;
    this.delayNanos = delayNanos;
  }

  /** {@return no hedging (the default)} */
  public static HedgePolicy off() {
    return OFF;
  }

  /**
   * Hedges a read that has no answer after {@code delay}.
   *
   * @param delay a positive duration
   * @return the policy
   * @throws IllegalArgumentException when {@code delay} is null, zero or negative
   */
  public static HedgePolicy after(Duration delay) {
    return new HedgePolicy(false, positive("after", delay));
  }

  /**
   * Hedges a read that has no answer after its node's recent p99 latency, or after {@code floor} if
   * that is longer (or the node has too few recent samples).
   *
   * @param floor a positive duration
   * @return the policy
   * @throws IllegalArgumentException when {@code floor} is null, zero or negative
   */
  public static HedgePolicy nodeP99(Duration floor) {
    return new HedgePolicy(true, positive("p99", floor));
  }

  private static long positive(String form, Duration d) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(
          "hedgeReads " + form + ": the delay must be positive, was " + d);
    }
    return d.toNanos();
  }

  /** {@return whether reads are hedged at all} False only for {@link #off()}. */
  public boolean enabled() {
    return delayNanos > 0;
  }

  /** {@return true for {@link #nodeP99}: the delay follows the node's recent latency} */
  public boolean followsNodeP99() {
    return nodeP99;
  }

  /**
   * How long a read waits before it is hedged.
   *
   * @param nodeP99Nanos the node's recent p99 latency in nanoseconds, 0 when unknown
   * @return the wait in nanoseconds; 0 when hedging is off
   */
  public long delayNanos(long nodeP99Nanos) {
    return nodeP99 ? Math.max(delayNanos, nodeP99Nanos) : delayNanos;
  }

  /**
   * Parses the text forms above (case-insensitive; milliseconds may have fractions).
   *
   * @param text {@code off}, {@code after:<ms>} or {@code p99:<minMs>}; null or empty means off
   * @return the policy
   * @throws IllegalArgumentException naming the setting, the value and the forms, when it is not one
   */
  public static HedgePolicy parse(String text) {
    String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
    try {
      if (t.equals("off") || t.isEmpty()) {
        return OFF;
      }
      if (t.startsWith("after:")) {
        return after(millis(t.substring(6)));
      }
      if (t.startsWith("p99:")) {
        return nodeP99(millis(t.substring(4)));
      }
    } catch (IllegalArgumentException e) {
      // falls through to the message naming the forms
    }
    throw new IllegalArgumentException("hedgeReads: invalid value \"" + text
        + "\"; expected off, after:<ms> or p99:<minMs> (e.g. after:5, p99:2)");
  }

  /** Milliseconds, fractions allowed (0.5 = 500 µs). */
  private static Duration millis(String text) {
    return Duration.ofNanos(Math.round(Double.parseDouble(text.trim()) * 1_000_000));
  }

  /** The text form, parseable by {@link #parse(String)}. */
  @Override
  public String toString() {
    if (!enabled()) {
      return "off";
    }
    String ms = delayNanos % 1_000_000 == 0
        ? Long.toString(delayNanos / 1_000_000)
        : BigDecimal.valueOf(delayNanos, 6).stripTrailingZeros().toPlainString();
    return (nodeP99 ? "p99:" : "after:") + ms;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HedgePolicy h && h.nodeP99 == nodeP99 && h.delayNanos == delayNanos;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(delayNanos) * 31 + (nodeP99 ? 1 : 0);
  }
}
