package io.dyno.core.exec;

import java.util.concurrent.locks.LockSupport;

/** Waits between retries. Injectable so that backoff is tested without real waiting. */
@FunctionalInterface
public interface Sleeper {
  void sleep(long nanos) throws InterruptedException;

  /** Really waits (parks the calling thread). */
  static Sleeper system() {
    return nanos -> {
      long end = System.nanoTime() + nanos;
      long left = nanos;
      while (left > 0) {
        LockSupport.parkNanos(left);
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
        left = end - System.nanoTime();
      }
    };
  }
}
