package io.dyno.recipes.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition with a bound, instead of sleeping for a guessed time. */
public final class Await {
  private Await() {}

  public static void until(Duration bound, String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + bound.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not true within " + bound.toMillis() + " ms: " + what);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(2_000_000L); // poll interval, not a synchronisation guess
    }
  }
}
