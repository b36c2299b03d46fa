package io.dyno.core.time;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link Scheduler} on daemon threads; a task that throws is logged and keeps its schedule. */
final class DaemonScheduler implements Scheduler {
  private static final Logger log = LoggerFactory.getLogger(DaemonScheduler.class);
  private final ScheduledThreadPoolExecutor executor;

  DaemonScheduler(String name) {
    AtomicInteger count = new AtomicInteger();
    executor = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, name + "-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  @Override
  public Cancellable schedule(Runnable task, Duration delay) {
    ScheduledFuture<?> f = executor.schedule(guarded(task), delay.toNanos(), TimeUnit.NANOSECONDS);
    return () -> f.cancel(false);
  }

  @Override
  public Cancellable scheduleAtFixedRate(Runnable task, Duration initialDelay, Duration period) {
    ScheduledFuture<?> f = executor.scheduleAtFixedRate(
        guarded(task), initialDelay.toNanos(), period.toNanos(), TimeUnit.NANOSECONDS);
    return () -> f.cancel(false);
  }

  private static Runnable guarded(Runnable task) {
    return () -> {
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        log.warn("background task failed: {}", e.toString(), e);
      }
    };
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
