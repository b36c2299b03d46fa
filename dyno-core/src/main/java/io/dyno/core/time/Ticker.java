package io.dyno.core.time;

/** A source of monotonic nanoseconds, injectable so that time-driven behaviour is tested without sleeps. */
@FunctionalInterface
public interface Ticker {
  long nanoTime();

  static Ticker system() {
    return System::nanoTime;
  }
}
