package io.dyno.core.config;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.DoubleSupplier;

/**
 * How many times a command may run, and how long to wait before running it again on a node that
 * was already tried in the same call. Moving to a fresh replica (another rack) never waits.
 *
 * <p>Text forms (Archaius {@code dyno.<app>.retryPolicy}): {@code RunOnce},
 * {@code RetryNTimes:<n>[:<allowCrossRackFallback>]} (n retries, so n+1 runs, no backoff),
 * {@code ExponentialBackoff:<attempts>:<baseMs>:<maxMs>[:<allowCrossRackFallback>]}.
 *
 * <p>{@link #allowCrossRackFallback()} (the original Dyno's {@code allowFallback} /
 * {@code allowCrossZoneFallback}, true unless the text says {@code false}): whether a re-run after a
 * failure <em>while the command ran</em> (I/O error, timeout, Dynomite replica error) may go to the
 * key's owner in another rack. When false such re-runs stay on the local rack's owner. A failure
 * before the command was sent (pool timeout, connect failure, a node out of rotation) still moves to
 * the next replica: nothing ran, so nothing is repeated. The original Dyno's text form defaulted the
 * field to false; here it defaults to true, failing over being what the retries are for.
 */
public final class RetryPolicy {
  /** The kinds of policy. */
  public enum Kind {
    /** One run, no re-run ({@link #runOnce()}). */
    RUN_ONCE,
    /** A fixed number of re-runs without waiting ({@link #retryNTimes(int)}). */
    RETRY_N_TIMES,
    /** Re-runs with a randomized, growing wait ({@link #exponentialBackoff(int, Duration, Duration)}). */
    EXPONENTIAL_BACKOFF
  }

  private static final RetryPolicy RUN_ONCE =
      new RetryPolicy(Kind.RUN_ONCE, 1, Duration.ZERO, Duration.ZERO, true);

  private final Kind kind;
  private final int maxAttempts;
  private final Duration base;
  private final Duration max;
  private final boolean crossRack;

  private RetryPolicy(Kind kind, int maxAttempts, Duration base, Duration max, boolean crossRack) {
    this.kind = kind;
    this.maxAttempts = maxAttempts;
    this.base = base;
    this.max = max;
    this.crossRack = crossRack;
  }

  /** {@return one run, no retry (the original Dyno's default)} Borrow failures still fail over. */
  public static RetryPolicy runOnce() {
    return RUN_ONCE;
  }

  /**
   * {@code retries} retries after the first run ({@code retries + 1} runs), without waiting.
   *
   * @param retries 0..100; 0 is {@link #runOnce()}
   * @return the policy
   * @throws IllegalArgumentException naming the value when it is out of range
   */
  public static RetryPolicy retryNTimes(int retries) {
    if (retries < 0 || retries > 100) {
      throw new IllegalArgumentException("retryPolicy: retries must be 0..100, was " + retries);
    }
    return retries == 0
        ? RUN_ONCE
        : new RetryPolicy(Kind.RETRY_N_TIMES, retries + 1, Duration.ZERO, Duration.ZERO, true);
  }

  /**
   * Up to {@code maxAttempts} runs; before re-running on a node already tried, waits a random time
   * in {@code [0, min(max, base * 2^(n-1))]} ("full jitter"), n = 1 for the first such wait.
   *
   * @param maxAttempts runs in all, the first included: 1..100
   * @param base the first wait's upper bound; not negative
   * @param max the longest wait; at least {@code base}
   * @return the policy
   * @throws IllegalArgumentException naming the value when one is out of range
   */
  public static RetryPolicy exponentialBackoff(int maxAttempts, Duration base, Duration max) {
    if (maxAttempts < 1 || maxAttempts > 100) {
      throw new IllegalArgumentException(
          "retryPolicy: maxAttempts must be 1..100, was " + maxAttempts);
    }
    Objects.requireNonNull(base, "retryPolicy: base");
    Objects.requireNonNull(max, "retryPolicy: max");
    if (base.isNegative() || max.isNegative() || max.compareTo(base) < 0) {
      throw new IllegalArgumentException(
          "retryPolicy: need 0 <= base <= max, was base=" + base + " max=" + max);
    }
    return new RetryPolicy(Kind.EXPONENTIAL_BACKOFF, maxAttempts, base, max, true);
  }

  /**
   * This policy with re-runs after a failure while the command ran allowed to go to another rack
   * ({@code true}, the default) or kept on the local rack's owner ({@code false}). A policy without
   * re-runs ({@link #runOnce()}) has nothing to restrict and is returned as it is.
   *
   * @param allow false to keep re-runs after a failure while the command ran on the local rack's owner
   * @return a policy like this one with that setting (this one when nothing changes)
   */
  public RetryPolicy withCrossRackFallback(boolean allow) {
    if (kind == Kind.RUN_ONCE || allow == crossRack) {
      return this;
    }
    return new RetryPolicy(kind, maxAttempts, base, max, allow);
  }

  /**
   * Parses the text forms above (case-insensitive names).
   *
   * @param text e.g. {@code RunOnce}, {@code RetryNTimes:2}, {@code ExponentialBackoff:3:10:200:false}
   * @return the policy
   * @throws IllegalArgumentException naming the text and what was expected, when it is not one
   */
  public static RetryPolicy parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("retryPolicy: must not be null");
    }
    String[] parts = text.trim().split(":");
    try {
      switch (parts[0].toLowerCase(Locale.ROOT)) {
        case "runonce":
          if (parts.length == 1) return runOnce();
          break;
        case "retryntimes":
          if (parts.length == 2 || parts.length == 3) {
            RetryPolicy p = retryNTimes(Integer.parseInt(parts[1].trim()));
            return parts.length == 3 ? p.withCrossRackFallback(crossRackField(parts[2], text)) : p;
          }
          break;
        case "exponentialbackoff":
          if (parts.length == 4 || parts.length == 5) {
            RetryPolicy p = exponentialBackoff(
                Integer.parseInt(parts[1].trim()),
                Duration.ofMillis(Long.parseLong(parts[2].trim())),
                Duration.ofMillis(Long.parseLong(parts[3].trim())));
            return parts.length == 5 ? p.withCrossRackFallback(crossRackField(parts[4], text)) : p;
          }
          break;
        default:
          break;
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("retryPolicy: bad number in \"" + text + "\"", e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage() + " (in \"" + text + "\")", e);
    }
    throw new IllegalArgumentException("retryPolicy: unknown value \"" + text
        + "\"; expected RunOnce, RetryNTimes:<n>[:<allowCrossRackFallback>] or"
        + " ExponentialBackoff:<attempts>:<baseMs>:<maxMs>[:<allowCrossRackFallback>]");
  }

  /** The optional last field: exactly true or false (any case); anything else is refused, naming it. */
  private static boolean crossRackField(String field, String text) {
    String f = field.trim();
    if (f.equalsIgnoreCase("true")) {
      return true;
    }
    if (f.equalsIgnoreCase("false")) {
      return false;
    }
    throw new IllegalArgumentException(
        "retryPolicy: allowCrossRackFallback must be true or false, was \"" + f + "\"");
  }

  /** {@return which kind of policy this is} */
  public Kind kind() {
    return kind;
  }

  /**
   * Whether a re-run after a failure while the command ran may go to another rack (see the class
   * comment); false: it stays on the local rack's owner. True for {@link #runOnce()}.
   *
   * @return true when such re-runs may go to another rack
   */
  public boolean allowCrossRackFallback() {
    return crossRack;
  }

  /** {@return the runs allowed in all, the first included} */
  public int maxAttempts() {
    return maxAttempts;
  }

  /**
   * The wait before the {@code n}-th re-run on an already-tried node (n starts at 1);
   * {@code random} returns values in [0, 1).
   *
   * @param n which re-run on an already-tried node is about to happen, from 1
   * @param random the jitter source, values in [0, 1)
   * @return the wait in nanoseconds; 0 for policies that do not wait
   */
  public long backoffNanos(int n, DoubleSupplier random) {
    if (kind != Kind.EXPONENTIAL_BACKOFF || max.isZero()) {
      return 0;
    }
    long cap = max.toNanos();
    long exp = base.toNanos() << Math.min(30, Math.max(0, n - 1));
    long bound = exp <= 0 || exp > cap ? cap : exp;
    return (long) (random.getAsDouble() * bound);
  }

  /** The text form, parseable by {@link #parse(String)}. */
  @Override
  public String toString() {
    return switch (kind) {
      case RUN_ONCE -> "RunOnce";
      case RETRY_N_TIMES -> "RetryNTimes:" + (maxAttempts - 1) + (crossRack ? "" : ":false");
      case EXPONENTIAL_BACKOFF ->
        "ExponentialBackoff:" + maxAttempts + ":" + base.toMillis() + ":" + max.toMillis()
            + (crossRack ? "" : ":false");
    };
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RetryPolicy r
        && r.kind == kind
        && r.maxAttempts == maxAttempts
        && r.base.equals(base)
        && r.max.equals(max)
        && r.crossRack == crossRack;
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, maxAttempts, base, max, crossRack);
  }
}
