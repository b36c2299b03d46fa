package io.dyno.core.time;

/** A source of monotonic nanoseconds, injectable so that time-driven behaviour is tested without sleeps. */
@FunctionalInterface
public interface Ticker {
  /** {@return the current time in nanoseconds} Only differences between two readings mean anything. */
  long nanoTime();

  /** {@return the JVM's monotonic clock, {@link System#nanoTime()}} */
  static Ticker system() {
    return System::nanoTime;
  }
}
