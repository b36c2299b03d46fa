package io.dyno.core.engine.internal;

import io.dyno.core.time.Ticker;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

/** Waits between retries. Injectable so that backoff is tested without real waiting. */
@FunctionalInterface
public interface Sleeper {
  /**
   * Waits on the calling thread.
   *
   * @param nanos how long, in nanoseconds; zero or less returns at once
   * @throws InterruptedException when the thread is interrupted while waiting
   */
  void sleep(long nanos) throws InterruptedException;

  /** {@return a sleeper that really waits (parks the calling thread), timed by {@link Ticker#system()}} */
  static Sleeper system() {
    return system(Ticker.system());
  }

  /**
   * Really waits (parks the calling thread) until {@code ticker} has moved on by the time asked
   * for. The parking is real but the ticker decides when the wait is over, so that the engine's
   * backoff follows the engine's clock; on a clock that moves only when told to, the wait lasts
   * until it is advanced past its end.
   *
   * @param ticker the clock that decides when a wait is over; not null
   * @return the sleeper
   */
  static Sleeper system(Ticker ticker) {
    Objects.requireNonNull(ticker, "ticker");
    return nanos -> {
      long end = ticker.nanoTime() + nanos;
      long left = nanos;
      while (left > 0) {
        LockSupport.parkNanos(left);
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
        left = end - ticker.nanoTime();
      }
    };
  }
}
