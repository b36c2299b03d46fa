package io.dyno.core.time;

import java.time.Duration;

/**
 * Runs background work later or periodically (topology refresh, pool maintenance, health probes).
 * Injectable: tests use {@code ManualScheduler} (in dyno-core's test-jar); production uses {@link #daemon(String)}.
 */
public interface Scheduler extends AutoCloseable {

  /**
   * Runs {@code task} once after {@code delay}, on the scheduler's thread.
   *
   * @param task the work; should not block for long (it delays the scheduler's other tasks)
   * @param delay zero or more
   * @return a handle to cancel the task before it runs
   */
  Cancellable schedule(Runnable task, Duration delay);

  /**
   * Runs {@code task} every {@code period}, first after {@code initialDelay}; a throwing run does not
   * stop later ones, and runs never overlap.
   *
   * @param task the work
   * @param initialDelay zero or more
   * @param period a positive duration
   * @return a handle that stops later runs
   */
  Cancellable scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period);

  /**
   * Runs {@code task} as soon as possible on a background thread.
   *
   * @param task the work
   * @return a handle to cancel the task before it runs
   */
  default Cancellable execute(Runnable task) {
    return schedule(task, Duration.ZERO);
  }

  /** Stops running tasks. Idempotent. */
  @Override
  void close();

  /** A handle to cancel a scheduled task. */
  @FunctionalInterface
  interface Cancellable {
    /** Cancels the task: a run not started yet never starts; one running is not interrupted. Idempotent. */
    void cancel();
  }

  /**
   * A scheduler on one daemon thread named {@code name}.
   *
   * @param name the thread's name (shown in thread dumps)
   * @return a new scheduler; close it to stop its thread
   */
  static Scheduler daemon(String name) {
    return new DaemonScheduler(name);
  }
}
