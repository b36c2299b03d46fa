package io.dyno.core.metrics;

import com.netflix.spectator.api.Timer;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The borrow delay of one node's pool ({@link DynoMetrics#POOL_BORROW}, a Spectator PercentileTimer),
 * recorded on every borrow without making the fast path pay for a shared timer.
 *
 * <p>Recording a PercentileTimer sample costs several atomic updates on cache lines that every
 * borrowing thread shares; under contention that was ten times the cost of the borrow itself. So:
 * <ul>
 *   <li>A borrow that found a free connection at once did not wait; the pool counts it in a
 *       per-thread counter (no clock read, no shared cache line written) that this class reads
 *       through {@code immediateBorrows}, and it is published later as a 0 ns sample.</li>
 *   <li>A borrow that had to wait is timed by the caller with one clock pair and recorded into the
 *       timer at once ({@link #waited(long)}): its cost is small next to the wait.</li>
 *   <li>{@link #publish()} moves the counted immediate borrows into the timer in batches. The engine
 *       calls it from its maintenance task (every {@code maintenanceInterval}) and when a pool closes,
 *       so the timer's count lags the truth by at most one interval and no borrow is lost.</li>
 * </ul>
 * The timer's count is therefore every borrow, its total time the time spent waiting, and its
 * percentiles the same buckets as before.
 */
public final class BorrowDelay {
  private static final long[] ZEROS = new long[1024];

  private final Timer timer;
  private final LongSupplier immediateBorrows;
  private long published; // guarded by this

  /** @param immediateBorrows the pool's running total of borrows that did not wait */
  BorrowDelay(Timer timer, LongSupplier immediateBorrows) {
    this.timer = timer;
    this.immediateBorrows = immediateBorrows;
  }

  /** A borrow that waited {@code nanos} (successful or not). */
  public void waited(long nanos) {
    timer.record(nanos, TimeUnit.NANOSECONDS);
  }

  /** Records the immediate borrows counted since the last call into the timer; returns how many. */
  public synchronized long publish() {
    long n = immediateBorrows.getAsLong() - published;
    if (n <= 0) {
      return 0; // (a total read a moment ago may have included a borrow undone since)
    }
    published += n;
    for (long left = n; left > 0; ) {
      int k = (int) Math.min(left, ZEROS.length);
      timer.record(ZEROS, k, TimeUnit.NANOSECONDS);
      left -= k;
    }
    return n;
  }

  /** Immediate borrows counted but not yet published. */
  public synchronized long pending() {
    return Math.max(0, immediateBorrows.getAsLong() - published);
  }

  /** The underlying Spectator timer. */
  public Timer timer() {
    return timer;
  }
}
