package io.dyno.loadgen.bench;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Paces callers to a rate that may change at any moment. Each permit gets the next free time
 * slot; a caller parks until its slot. A rate change re-bases the schedule at once, and waiting
 * callers re-check every 20 ms, so a new limit shows within a fraction of a second. A rate of 0 or
 * less means unlimited. Idle time does not build up credit beyond 100 ms of burst.
 */
final class RateLimiter {
  private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
  private static final long MAX_BURST_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private double permitsPerSecond;
  private long intervalNanos;
  private long nextFree;
  private long generation;

  RateLimiter(double permitsPerSecond) {
    setRate(permitsPerSecond);
  }

  synchronized void setRate(double permitsPerSecond) {
    this.permitsPerSecond = permitsPerSecond;
    this.intervalNanos = permitsPerSecond <= 0 ? 0 : (long) (1e9 / permitsPerSecond);
    this.nextFree = System.nanoTime();
    this.generation++;
  }

  synchronized double rate() {
    return permitsPerSecond;
  }

  /** Blocks until {@code permits} may be used; returns false when interrupted or {@code stop} says so. */
  boolean acquire(int permits, BooleanSupplier stop) {
    while (true) {
      long target;
      long gen;
      synchronized (this) {
        if (intervalNanos == 0) {
          return true;
        }
        long now = System.nanoTime();
        if (nextFree < now - MAX_BURST_NANOS) {
          nextFree = now - MAX_BURST_NANOS;
        }
        target = nextFree;
        nextFree += intervalNanos * permits;
        gen = generation;
      }
      boolean rebased = false;
      while (true) {
        long wait = target - System.nanoTime();
        if (wait <= 0) {
          return true;
        }
        if (stop.getAsBoolean() || Thread.currentThread().isInterrupted()) {
          return false;
        }
        LockSupport.parkNanos(Math.min(wait, MAX_PARK_NANOS));
        synchronized (this) {
          if (generation != gen) {
            rebased = true;
          }
        }
        if (rebased) {
          break; // the rate changed: take a slot on the new schedule
        }
      }
    }
  }
}
