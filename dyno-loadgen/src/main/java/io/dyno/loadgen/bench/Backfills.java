package io.dyno.loadgen.bench;

import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The backfills of a run: before the load, or started from the console while it goes on (one at a
 * time). Each is marked on the run's time line; the last one's figures go into the result.
 */
final class Backfills {
  private final Knobs knobs;
  private final Driver driver;
  private final BooleanSupplier stop;
  private final ErrorKinds errorKinds;
  private final Consumer<String> progress;
  private final BiConsumer<String, String> event;
  private volatile boolean running;
  private volatile Backfill.Outcome last = new Backfill.Outcome(0, 0, 0);

  Backfills(
      Knobs knobs,
      Driver driver,
      BooleanSupplier stop,
      ErrorKinds errorKinds,
      Consumer<String> progress,
      BiConsumer<String, String> event) {
    this.knobs = knobs;
    this.driver = driver;
    this.stop = stop;
    this.errorKinds = errorKinds;
    this.progress = progress;
    this.event = event;
  }

  boolean running() {
    return running;
  }

  /** The last backfill that completed (zeros when none did). */
  Backfill.Outcome last() {
    return last;
  }

  /** Writes every key once with the settings in force, printing progress; returns the keys written. */
  long run() throws InterruptedException {
    BenchConfig config = knobs.config();
    running = true;
    event.accept("backfill", "backfill of " + config.keys + " keys started");
    try {
      Backfill.Outcome o =
          new Backfill(config, knobs.values(), driver, stop, errorKinds, progress).run();
      last = o;
      event.accept(
          "backfill",
          String.format(
              "backfill done: %d keys in %.1f s, %d failed",
              o.done(), o.nanos() / 1e9, o.failed()));
      return o.written();
    } finally {
      running = false;
    }
  }

  /** Starts a backfill in the background (the load goes on beside it); false when one is running. */
  synchronized boolean startInBackground() {
    if (running) return false;
    Thread t = new Thread(
        () -> {
          try {
            run();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        },
        "bench-backfill-now");
    t.setDaemon(true);
    running = true;
    t.start();
    return true;
  }
}
