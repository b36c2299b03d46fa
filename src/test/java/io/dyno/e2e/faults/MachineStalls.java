package io.dyno.e2e.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * When this machine stopped running the test: a daemon thread that asks to wake every {@link
 * #TICK_MS} ms records each wake-up that came {@link #RECORDED_MS} ms or more late, as the span
 * it was kept from running (ms since the run's origin). A busy machine (CI shares it; a parallel
 * build; the JIT and collector of the test's own JVM) stalls every thread at once, the clients'
 * as much as this one, so a call whose life overlaps a long stall was held by the machine, not by
 * the client, and the checks leave it out ({@link Figures}); each run prints the stalls it saw. A
 * client that holds its callers (a lock, a pool wait) does not delay this thread, so its stalls
 * still count against it.
 */
final class MachineStalls implements AutoCloseable {
  static final long TICK_MS = 5;
  static final long RECORDED_MS = 50;

  private final long originNanos;
  private final List<long[]> stalls = new ArrayList<>();
  private final Thread thread;
  private volatile boolean running = true;

  MachineStalls(long originNanos) {
    this.originNanos = originNanos;
    this.thread = new Thread(this::watch, "machine-stalls");
    thread.setDaemon(true);
    thread.start();
  }

  private void watch() {
    long tick = TICK_MS * 1_000_000;
    while (running) {
      long due = System.nanoTime() + tick;
      LockSupport.parkNanos(tick); // the measurement itself: how late this wake-up comes
      long now = System.nanoTime();
      if (now - due >= RECORDED_MS * 1_000_000) {
        synchronized (stalls) {
          stalls.add(new long[] {(due - originNanos) / 1_000_000, (now - originNanos) / 1_000_000});
        }
      }
    }
  }

  /** The longest stall overlapping [fromMs, toMs], in ms (0: none recorded). */
  long longestWithin(long fromMs, long toMs) {
    long longest = 0;
    synchronized (stalls) {
      for (long[] s : stalls) {
        if (s[1] >= fromMs && s[0] <= toMs) longest = Math.max(longest, s[1] - s[0]);
      }
    }
    return longest;
  }

  /** Stalls of at least {@code minMs} ms between {@code fromMs} and {@code toMs}, as "at +s: ms". */
  List<String> describe(long fromMs, long toMs, long minMs, long zeroMs) {
    List<String> out = new ArrayList<>();
    synchronized (stalls) {
      for (long[] s : stalls) {
        if (s[1] - s[0] >= minMs && s[1] >= fromMs && s[0] <= toMs) {
          out.add(
              String.format(Locale.ROOT, "%+.1f s: %d ms", (s[0] - zeroMs) / 1000.0, s[1] - s[0]));
        }
      }
    }
    return out;
  }

  @Override
  public void close() {
    running = false;
    LockSupport.unpark(thread);
  }
}
