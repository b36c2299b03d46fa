package io.dyno.core.metrics.internal;

import com.netflix.spectator.api.Counter;
import com.netflix.spectator.api.Id;
import com.netflix.spectator.api.Registry;
import com.netflix.spectator.api.Statistic;
import com.netflix.spectator.api.Timer;
import com.netflix.spectator.api.histogram.PercentileBuckets;
import com.netflix.spectator.api.histogram.PercentileTimer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The borrow delay of one node's pool ({@link io.dyno.core.metrics.DynoMetrics#POOL_BORROW}, a Spectator PercentileTimer),
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
 *   <li>{@link #publish()} moves the counted immediate borrows into the timer in one batch. The engine
 *       calls it from its maintenance task (every {@code maintenanceInterval}) and when a pool closes,
 *       so the timer's count lags the truth by at most one interval and no borrow is lost.</li>
 * </ul>
 * The timer's count is therefore every borrow, its total time the time spent waiting, and its
 * percentiles the same buckets as before.
 */
public final class BorrowDelay {
  /**
   * The PercentileTimer's range. Spectator's default floor is 10 ms, which would put every borrow of
   * a healthy pool (microseconds) in one bucket; 1 µs keeps the percentiles meaningful. Immediate
   * borrows (0 ns) land in the floor bucket.
   */
  public static final Duration MIN = Duration.ofNanos(1_000);

  public static final Duration MAX = Duration.ofMinutes(1);
  private static final int BATCH = 4096;

  private final Timer percentileTimer;
  private final Timer timer;
  private final Counter floorBucket;
  private final LongSupplier immediateBorrows;
  private long published; // guarded by this

  /** @param immediateBorrows the pool's running total of borrows that did not wait */
  BorrowDelay(Registry registry, Id id, LongSupplier immediateBorrows) {
    this.percentileTimer =
        PercentileTimer.builder(registry).withId(id).withRange(MIN, MAX).build();
    // The meters a PercentileTimer records into: the plain timer of the same id, and one counter
    // per
    // bucket tagged statistic=percentile, percentile=T<hex index>. A 0 ns sample is clamped to MIN.
    this.timer = registry.timer(id);
    this.floorBucket = registry.counter(id.withTag(Statistic.percentile)
        .withTag("percentile", String.format("T%04X", PercentileBuckets.indexOf(MIN.toNanos()))));
    this.immediateBorrows = immediateBorrows;
  }

  /** A borrow that waited {@code nanos} (successful or not). */
  public void waited(long nanos) {
    percentileTimer.record(nanos, TimeUnit.NANOSECONDS);
  }

  /**
   * Records the immediate borrows counted since the last call; returns how many. Exactly what
   * {@code n} PercentileTimer records of 0 ns would do, but the bucket counter is bumped once and
   * the timer's samples go through its batch updater (one pass, no contention).
   */
  public synchronized long publish() {
    long n = immediateBorrows.getAsLong() - published;
    if (n <= 0) {
      return 0; // (a total read a moment ago may have included a borrow undone since)
    }
    published += n;
    floorBucket.increment(n);
    try (Timer.BatchUpdater batch = timer.batchUpdater(BATCH)) {
      for (long i = 0; i < n; i++) {
        batch.record(0, TimeUnit.NANOSECONDS);
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not publish borrow delays to " + timer.id(), e);
    }
    return n;
  }

  /** Immediate borrows counted but not yet published. */
  public synchronized long pending() {
    return Math.max(0, immediateBorrows.getAsLong() - published);
  }

  /** The Spectator PercentileTimer (dyno.pool.borrow of one node). */
  public Timer timer() {
    return percentileTimer;
  }
}
