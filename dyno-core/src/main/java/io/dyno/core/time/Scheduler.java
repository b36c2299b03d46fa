package io.dyno.core.time;

import java.time.Duration;

/**
 * Runs background work later or periodically (topology refresh, pool maintenance, health probes).
 * Injectable: tests use {@code ManualScheduler} (in dyno-core's test-jar); production uses {@link #daemon(String)}.
 */
public interface Scheduler extends AutoCloseable {

  /** Runs {@code task} once after {@code delay}. */
  Cancellable schedule(Runnable task, Duration delay);

  /** Runs {@code task} every {@code period}, first after {@code initialDelay}; a throwing run does not stop later ones. */
  Cancellable scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period);

  /** Runs {@code task} as soon as possible on a background thread. */
  default Cancellable execute(Runnable task) {
    return schedule(task, Duration.ZERO);
  }

  /** Stops running tasks. Idempotent. */
  @Override
  void close();

  /** A handle to cancel a scheduled task. */
  @FunctionalInterface
  interface Cancellable {
    void cancel();
  }

  /** A scheduler on one daemon thread named {@code name}. */
  static Scheduler daemon(String name) {
    return new DaemonScheduler(name);
  }
}
