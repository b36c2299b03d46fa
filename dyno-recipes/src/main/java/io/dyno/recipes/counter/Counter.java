package io.dyno.recipes.counter;

/** A distributed counter. */
public interface Counter {
  /** Adds {@code delta} (may be negative). */
  void incrementBy(long delta);

  default void increment() {
    incrementBy(1);
  }

  /** The current total as far as this client can read it (see each implementation's consistency notes). */
  long get();
}
