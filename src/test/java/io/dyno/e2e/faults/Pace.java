package io.dyno.e2e.faults;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * One load thread's schedule: a call every {@code intervalNanos}. A thread that falls behind (its
 * call outlasted its slot) starts the next call at once and drops the slots it missed instead of
 * bursting to make them up, so a stalled client shows as a second below its rate, and never as a
 * burst that hides the stall or loads the machine the other clients are measured on.
 */
final class Pace {
  private final long intervalNanos;
  private final LongSupplier clock;
  private long next;
  private long dropped;

  /** A schedule whose first slot is at {@code firstNanos} on {@code clock} (nanoTime-like). */
  Pace(long intervalNanos, long firstNanos, LongSupplier clock) {
    if (intervalNanos <= 0) throw new IllegalArgumentException("interval " + intervalNanos + " ns");
    this.intervalNanos = intervalNanos;
    this.clock = clock;
    this.next = firstNanos;
  }

  /** The interval for {@code threads} threads sharing {@code opsPerSecond}, in ns. */
  static long intervalNanos(int opsPerSecond, int threads) {
    if (opsPerSecond <= 0) throw new IllegalArgumentException("rate " + opsPerSecond + " ops/s");
    return Math.max(1, 1_000_000_000L * threads / opsPerSecond);
  }

  /** Nanoseconds until the next slot (0 if it has come). */
  long untilNextSlot() {
    return Math.max(0, next - clock.getAsLong());
  }

  /**
   * Parks until the next slot; false if {@code running} turned false meanwhile. Parking is the
   * pacing itself (the rate), not a wait for another thread.
   */
  boolean awaitSlot(BooleanSupplier running) {
    for (long wait; (wait = untilNextSlot()) > 0; ) {
      if (!running.getAsBoolean()) return false;
      LockSupport.parkNanos(Math.min(wait, 50_000_000L));
    }
    return running.getAsBoolean();
  }

  /** After a call: the next slot is one interval on, or now if that has passed already. */
  void advance() {
    next += intervalNanos;
    long now = clock.getAsLong();
    if (next < now) {
      dropped += (now - next - 1) / intervalNanos; // the slot run late now is not dropped
      next = now;
    }
  }

  /** Slots skipped so far because the thread was behind. */
  long dropped() {
    return dropped;
  }
}
