package io.dyno.e2e.faults;

import io.dyno.companion.containers.ContainerNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Kills one node's server process with SIGKILL ({@code docker kill}) and starts it again, every
 * {@code period} for {@code length}, on a daemon thread; the node's redis-server stays up, so what
 * the revived node missed is only what was written while it was away. {@link #close()} stops the
 * storm and leaves the node running.
 */
final class ResetStorm implements AutoCloseable {
  private final ContainerNode node;
  private final Duration period;
  private final Duration length;
  private final Thread thread;
  private final List<String> log = new ArrayList<>();
  private volatile boolean stopped;
  private volatile RuntimeException failure;
  private int resets;

  ResetStorm(ContainerNode node, Duration period, Duration length) {
    this.node = node;
    this.period = period;
    this.length = length;
    this.thread = new Thread(this::run, "reset-storm-" + node.rack() + "-" + node.indexInRack());
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  private void run() {
    long start = System.nanoTime();
    long end = start + length.toNanos();
    try {
      // A kill every period, or at once when the revive took longer; none after the storm's length.
      for (long next = start; !stopped; next += period.toNanos()) {
        long wait = next - System.nanoTime();
        if (wait > 0) TimeUnit.NANOSECONDS.sleep(wait); // the storm's own schedule
        long t0 = System.nanoTime();
        if (t0 >= end) break;
        node.restart(); // SIGKILL, then start again and wait until it answers PING
        synchronized (log) {
          resets++;
          log.add(String.format(
              "reset %d at %.1f s: back in %d ms",
              resets, (t0 - start) / 1e9, (System.nanoTime() - t0) / 1_000_000));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      failure = e;
    }
  }

  /** Waits for the storm to end (it ends by itself after its length). */
  void awaitEnd(Duration bound) throws InterruptedException {
    thread.join(bound.toMillis());
    if (thread.isAlive())
      throw new IllegalStateException("the reset storm on " + node + " did not end");
    if (failure != null)
      throw new IllegalStateException("the reset storm on " + node + " failed", failure);
  }

  int resets() {
    synchronized (log) {
      return resets;
    }
  }

  List<String> log() {
    synchronized (log) {
      return List.copyOf(log);
    }
  }

  /** Stops the storm; the node is left running. Idempotent. */
  @Override
  public void close() throws InterruptedException {
    stopped = true;
    thread.join(60_000);
    if (!node.isRunning()) node.restart();
  }
}
