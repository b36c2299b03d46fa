package io.dyno.core.metrics;

import com.netflix.spectator.api.Timer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The borrow delay of one node's pool ({@link DynoMetrics#POOL_BORROW}, a Spectator PercentileTimer),
 * recorded on every borrow without making the fast path pay for a shared timer.
 *
 * <p>Recording a PercentileTimer sample costs several atomic updates on cache lines that every
 * borrowing thread shares; under contention that was ten times the cost of the borrow itself. So:
 * <ul>
 *   <li>A borrow that found a free connection at once ({@link #immediate()}) did not wait; it is
 *       counted in a striped {@link LongAdder} (no clock read, no shared line written under
 *       contention) and published later as a 0 ns sample.</li>
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
  private final LongAdder immediate = new LongAdder();
  private long published; // guarded by this

  BorrowDelay(Timer timer) {
    this.timer = timer;
  }

  /** A borrow that did not wait. */
  public void immediate() {
    immediate.increment();
  }

  /** A borrow that waited {@code nanos} (successful or not). */
  public void waited(long nanos) {
    timer.record(nanos, TimeUnit.NANOSECONDS);
  }

  /** Records the immediate borrows counted since the last call into the timer; returns how many. */
  public synchronized long publish() {
    long total = immediate.sum();
    long n = total - published;
    published = total;
    for (long left = n; left > 0; ) {
      int k = (int) Math.min(left, ZEROS.length);
      timer.record(ZEROS, k, TimeUnit.NANOSECONDS);
      left -= k;
    }
    return n;
  }

  /** Immediate borrows counted but not yet published. */
  public synchronized long pending() {
    return immediate.sum() - published;
  }

  /** The underlying Spectator timer. */
  public Timer timer() {
    return timer;
  }
}
