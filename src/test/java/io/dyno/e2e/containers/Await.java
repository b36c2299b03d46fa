package io.dyno.e2e.containers;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Bounded polling for a condition that becomes true asynchronously (replication, restarts). */
final class Await {
  private Await() {}

  static void until(String what, Duration bound, BooleanSupplier condition) {
    long deadline = System.nanoTime() + bound.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + bound + " waiting until " + what);
      }
      try {
        Thread.sleep(20); // poll interval of a bounded wait
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting until " + what, e);
      }
    }
  }
}
