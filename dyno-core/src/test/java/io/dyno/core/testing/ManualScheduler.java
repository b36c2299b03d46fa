package io.dyno.core.testing;

import io.dyno.core.time.Scheduler;
import io.dyno.core.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A {@link Scheduler} and {@link Ticker} that only move when told to: {@link #advance(Duration)}
 * moves the clock and runs, on the calling thread, every task that came due, in time order.
 * For deterministic tests of refresh, backoff, health decay and the like; shipped so users can
 * test their own code the same way.
 */
public final class ManualScheduler implements Scheduler, Ticker {
  private final List<Task> tasks = new ArrayList<>();
  private long now;
  private long sequence;
  private boolean closed;

  @Override
  public synchronized long nanoTime() {
    return now;
  }

  @Override
  public synchronized Cancellable schedule(Runnable task, Duration delay) {
    return add(task, delay, null);
  }

  @Override
  public synchronized Cancellable scheduleAtFixedRate(
      Runnable task, Duration initialDelay, Duration period) {
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("period must be positive, was " + period);
    }
    return add(task, initialDelay, period);
  }

  private Cancellable add(Runnable runnable, Duration delay, Duration period) {
    if (closed) {
      return () -> {};
    }
    Task t = new Task(
        runnable,
        now + Math.max(0, delay.toNanos()),
        period == null ? 0 : period.toNanos(),
        sequence++);
    tasks.add(t);
    return () -> {
      synchronized (ManualScheduler.this) {
        tasks.remove(t);
      }
    };
  }

  /** Runs every task due now, without moving the clock. */
  public void runDue() {
    advance(Duration.ZERO);
  }

  /** Moves the clock forward by {@code step}, running each task as its time comes. */
  public void advance(Duration step) {
    long target;
    synchronized (this) {
      target = now + step.toNanos();
    }
    while (true) {
      Task next;
      synchronized (this) {
        next = tasks.stream()
            .filter(t -> t.due <= target)
            .min(Comparator.comparingLong((Task t) -> t.due).thenComparingLong(t -> t.seq))
            .orElse(null);
        if (next == null) {
          now = target;
          return;
        }
        now = Math.max(now, next.due);
        tasks.remove(next);
        if (next.period > 0) {
          next.due += next.period; // the same object, so its Cancellable still finds it
          next.seq = sequence++;
          tasks.add(next);
        }
      }
      next.runnable.run();
    }
  }

  /** Number of tasks waiting (periodic ones count once). */
  public synchronized int pendingTasks() {
    return tasks.size();
  }

  @Override
  public synchronized void close() {
    closed = true;
    tasks.clear();
  }

  private static final class Task {
    final Runnable runnable;
    final long period;
    long due;
    long seq;

    Task(Runnable runnable, long due, long period, long seq) {
      this.runnable = runnable;
      this.due = due;
      this.period = period;
      this.seq = seq;
    }
  }
}
