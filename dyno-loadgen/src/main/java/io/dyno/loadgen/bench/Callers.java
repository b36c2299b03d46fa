package io.dyno.loadgen.bench;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The threads that call the driver: platform threads (readers, writers, mixed threads), or with
 * {@code virtualThreads=N} N mixed callers on virtual threads, each running the same blocking loop.
 *
 * <p>The project is compiled with {@code --release 17}, where {@code Thread.ofVirtual()} does not
 * exist: the virtual-thread factory is looked up once at run time through a MethodHandle, and on a
 * JVM older than 21 the setting is refused naming the option and the running Java.
 *
 * <p>A run has a bound: when it ends, callers get {@link #GRACE} to return from the call they are
 * in. One still inside a call after that is counted as blocked and left behind (callers are daemon
 * threads), so a driver that stalls shows up in the report instead of the tool hanging on it.
 */
public final class Callers {
  /** How long callers may take to return after a run (or its warm-up) ends before they count as blocked. */
  public static final Duration GRACE = Duration.ofSeconds(10);

  /** Makes unstarted virtual threads; null when this JVM has none ({@link #UNAVAILABLE} says why). */
  private static final ThreadFactory VIRTUAL;

  private static final String UNAVAILABLE;

  static {
    ThreadFactory factory = null;
    String why = null;
    if (Runtime.version().feature() < 21) {
      // 19 and 20 have Thread.ofVirtual() too, but only behind --enable-preview.
      why = "virtual threads need Java 21 or later at run time";
    } else {
      try {
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        Class<?> builder = Class.forName("java.lang.Thread$Builder");
        Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
        MethodHandle newBuilder =
            lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtual));
        MethodHandle toFactory =
            lookup.findVirtual(builder, "factory", MethodType.methodType(ThreadFactory.class));
        Object b = newBuilder.invoke();
        factory = (ThreadFactory) toFactory.invoke(b);
      } catch (
          Throwable
              e) { // MethodHandle.invoke declares Throwable; any failure means no virtual threads
        // here
        why = "virtual threads could not be created on this JVM (" + e + ")";
      }
    }
    VIRTUAL = factory;
    UNAVAILABLE = why;
  }

  private Callers() {}

  /** Whether this JVM can run virtual threads (Java 21 or later). */
  public static boolean virtualThreadsAvailable() {
    return VIRTUAL != null;
  }

  /** The refusal of {@code what} (an option or setting asking for {@code n} virtual threads) on this JVM. */
  public static String virtualThreadsUnavailable(String what, int n) {
    return what + " " + n + ": " + UNAVAILABLE + "; this is Java " + Runtime.version() + " ("
        + System.getProperty("java.home")
        + "). Run the bench on a JDK 21 or later, or leave it at 0 (off).";
  }

  /** Starts one caller named {@code name}: a virtual thread when {@code virtual}, else a daemon platform thread. */
  static Thread start(boolean virtual, String name, Runnable body) {
    if (virtual && VIRTUAL == null) {
      throw new IllegalStateException(
          UNAVAILABLE); // Bench refuses the setting first; this is a guard
    }
    Thread t = virtual ? VIRTUAL.newThread(body) : new Thread(body);
    t.setName(name);
    if (!virtual) {
      t.setDaemon(true); // virtual threads are daemons already and refuse setDaemon(false)
    }
    t.start();
    return t;
  }

  /**
   * Waits until {@code untilNanos} (System.nanoTime) at most for {@code callers} to end; returns how
   * many are still alive, each blocked in a driver call (a caller between calls sees the stop within 20 ms).
   */
  static int awaitEnd(Collection<Thread> callers, long untilNanos) throws InterruptedException {
    for (Thread t : callers) {
      long left = untilNanos - System.nanoTime();
      if (left <= 0) {
        break;
      }
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))); // join(0) would wait for ever
    }
    int blocked = 0;
    for (Thread t : callers) {
      if (t.isAlive()) blocked++;
    }
    return blocked;
  }

  /** Callers alive now, over every group (the report written while a run goes on). */
  static int alive(Collection<? extends Collection<Thread>> groups) {
    int n = 0;
    for (Collection<Thread> g : groups) {
      for (Thread t : g) {
        if (t.isAlive()) n++;
      }
    }
    return n;
  }

  /** "jedis-pools: 812 of 1000 callers still blocked 10 s after the end", for the summary and the events. */
  static String blockedText(String driver, int blocked, int callers, Duration grace, String end) {
    double s = grace.toMillis() / 1000.0;
    return String.format(
        "%s: %d of %d callers still blocked %s s after %s",
        driver,
        blocked,
        callers,
        s == Math.rint(s) ? Long.toString((long) s) : Double.toString(s),
        end);
  }

  /** What calls the driver, for the summary's "callers" line and the report. */
  public static String describe(BenchConfig c) {
    String calls = c.async > 0
        ? "submitting through the asynchronous API, " + c.async + " requests in flight"
        : "each a blocking call at a time"
            + (c.pipelined() ? " (pipelines of " + c.pipelineMin + "-" + c.pipelineMax + ")" : "");
    if (c.virtualThreads > 0) {
      return c.virtualThreads + " virtual threads, " + calls + ", " + c.readPercent + "% GET / "
          + (100 - c.readPercent) + "% SET (readers, writers and threads not started)";
    }
    return "platform threads: " + c.readers + " readers, " + c.writers + " writers, " + c.threads
        + " mixed (" + c.readPercent + "% GET), " + calls;
  }
}
