package io.dyno.core.exec.internal;

import io.dyno.core.time.Ticker;
import java.time.Duration;

/**
 * When a call must be over, on the engine's {@link Ticker}: the one place that compares the clock
 * with it. A call without a deadline has {@link #NONE}, for which every question answers "time
 * enough". The parts of one scattered call share one value.
 */
final class Deadline {
  /** No deadline: nothing ever passes it. */
  static final Deadline NONE = new Deadline(null, 0, null);

  private final Ticker ticker; // null: NONE
  private final long at; // ticker time
  private final Duration length; // as asked, for messages

  private Deadline(Ticker ticker, long at, Duration length) {
    this.ticker = ticker;
    this.at = at;
    this.length = length;
  }

  /** {@code length} from {@code now} on {@code ticker}; {@link #NONE} for a null length. */
  static Deadline after(Duration length, Ticker ticker, long now) {
    return length == null ? NONE : new Deadline(ticker, now + length.toNanos(), length);
  }

  boolean isSet() {
    return ticker != null;
  }

  /** Nanoseconds left (zero or less once passed); {@link Long#MAX_VALUE} without a deadline. */
  long leftNanos() {
    return ticker == null ? Long.MAX_VALUE : at - ticker.nanoTime();
  }

  boolean passed() {
    return leftNanos() <= 0;
  }

  /** True when a wait of {@code nanos} from now would still end before the deadline. */
  boolean outlasts(long nanos) {
    return leftNanos() > nanos;
  }

  /**
   * The read timeout (ms, rounded up) that bounds a run by its share of the time left: the time
   * left over {@code shares} (the runs that may still need it, this one included), so that a hung
   * node leaves the rest to the replicas after it; never below {@code floorNanos} nor above the time
   * left. 0 without a deadline, -1 once passed.
   */
  long readCapMillis(int shares, long floorNanos) {
    if (ticker == null) {
      return 0;
    }
    long left = leftNanos();
    if (left <= 0) {
      return -1;
    }
    long budget = Math.max(left / Math.max(1, shares), Math.min(left, floorNanos));
    return (budget + 999_999) / 1_000_000;
  }

  /** The time left in whole milliseconds, at least 1 (for a read that must end by the deadline). */
  long leftMillisAtLeastOne() {
    return Math.max(1, (leftNanos() + 999_999) / 1_000_000);
  }

  /** "deadline of 500 ms" (for messages). */
  String describe() {
    return "deadline of " + (length == null ? "?" : length.toMillis() + " ms");
  }
}
