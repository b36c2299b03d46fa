package io.dyno.recipes.counter;

import io.dyno.core.DynoException;
import io.dyno.core.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.StampedLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accumulates increments locally and adds them to a backing {@link Counter} in one call per flush:
 * on a schedule, on {@link #flush()} and on {@link #close()}. Turns a hot counter's thousands of
 * increments per second into one request per interval.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>No increment accepted by {@link #incrementBy} is dropped: a failed flush puts its amount back
 *       and the next flush retries it; {@code close()} flushes and, if that fails, throws naming the
 *       amount still pending. Increments after {@code close()} are refused.</li>
 *   <li>A flush that fails after the server applied it (a timeout on the reply) is retried and then
 *       counts twice: at-least-once for the ambiguous case.</li>
 *   <li>Increments are invisible to others until flushed: readers lag by up to one interval, and a
 *       crash of this process loses at most what was accumulated since the last flush.</li>
 * </ul>
 */
public final class BatchedCounter implements Counter, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BatchedCounter.class);

  private final Counter target;
  private final LongAdder pending = new LongAdder();
  private final StampedLock gate = new StampedLock(); // increments share it; close takes it alone
  private final Scheduler scheduler;
  private final boolean ownsScheduler;
  private final Scheduler.Cancellable task;
  private volatile boolean closed;

  private BatchedCounter(Counter target, Duration interval, Scheduler scheduler) {
    this.target = Objects.requireNonNull(target, "target");
    if (interval == null || interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException(
          "batched counter on " + target + ": flush interval must be positive, was " + interval);
    }
    this.ownsScheduler = scheduler == null;
    this.scheduler = scheduler != null ? scheduler : Scheduler.daemon("dyno-counter-flush");
    this.task = this.scheduler.scheduleAtFixedRate(this::scheduledFlush, interval, interval);
  }

  /** Flushes into {@code target} every {@code interval} on its own daemon thread. */
  public static BatchedCounter of(Counter target, Duration interval) {
    return new BatchedCounter(target, interval, null);
  }

  /** Flushes into {@code target} every {@code interval} on {@code scheduler} (not closed by this counter). */
  public static BatchedCounter of(Counter target, Duration interval, Scheduler scheduler) {
    return new BatchedCounter(target, interval, Objects.requireNonNull(scheduler, "scheduler"));
  }

  @Override
  public void incrementBy(long delta) {
    long stamp = gate.readLock();
    try {
      if (closed) {
        throw new IllegalStateException("batched counter on " + target + " is closed");
      }
      pending.add(delta);
    } finally {
      gate.unlockRead(stamp);
    }
  }

  /** The backing counter's value plus what this instance has not flushed yet. */
  @Override
  public long get() {
    return target.get() + pending.sum();
  }

  /** Accumulated here, not yet sent. */
  public long pending() {
    return pending.sum();
  }

  /**
   * Sends what has accumulated. Returns the amount sent.
   *
   * @throws RuntimeException from the backing counter; the amount is kept for the next flush
   */
  public synchronized long flush() {
    long delta = pending.sumThenReset();
    if (delta == 0) {
      return 0;
    }
    try {
      target.incrementBy(delta);
      return delta;
    } catch (RuntimeException e) {
      pending.add(delta);
      throw e;
    }
  }

  private void scheduledFlush() {
    try {
      flush();
    } catch (RuntimeException e) {
      log.warn(
          "flush of {} failed, {} kept for the next flush: {}",
          target,
          pending.sum(),
          e.toString());
    }
  }

  /**
   * Refuses further increments, stops the schedule and flushes what is left. Idempotent.
   *
   * @throws DynoException if the final flush fails, naming the amount not sent
   */
  @Override
  public void close() {
    synchronized (gate) {
      if (closed) {
        return;
      }
      // Flag first: increments arriving from now on are refused at once, so they cannot keep the
      // write lock waiting; then the write lock waits out those already past the check.
      closed = true;
    }
    gate.unlockWrite(gate.writeLock());
    task.cancel();
    if (ownsScheduler) {
      scheduler.close();
    }
    try {
      flush();
    } catch (RuntimeException e) {
      throw new DynoException(
          "batched counter on " + target + ": final flush failed, " + pending.sum()
              + " increments not sent",
          e);
    }
  }
}
