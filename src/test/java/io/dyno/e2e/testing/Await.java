package io.dyno.e2e.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Bounded polling for a condition that becomes true asynchronously (replication, restarts). */
public final class Await {
  private Await() {}

  public static void until(String what, Duration bound, BooleanSupplier condition) {
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
