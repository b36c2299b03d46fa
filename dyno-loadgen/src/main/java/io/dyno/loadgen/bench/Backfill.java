package io.dyno.loadgen.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Writes every key once: pipelined batches of {@value #BATCH} (single SETs for a driver without
 * pipelines) on several threads, a progress line every second. Failures are counted under
 * "backfill ..." error kinds.
 */
final class Backfill {
  static final int BATCH = 100;

  /** Keys attempted, of which failed, and how long it took. */
  record Outcome(long done, long failed, long nanos) {
    long written() {
      return done - failed;
    }
  }

  private final BenchConfig config;
  private final ValueSource values;
  private final Driver driver;
  private final BooleanSupplier stop;
  private final ErrorKinds errorKinds;
  private final Consumer<String> progress;
  private final AtomicLong nextIndex = new AtomicLong();
  private final AtomicLong done = new AtomicLong();
  private final LongAdder failed = new LongAdder();

  Backfill(
      BenchConfig config,
      ValueSource values,
      Driver driver,
      BooleanSupplier stop,
      ErrorKinds errorKinds,
      Consumer<String> progress) {
    this.config = config;
    this.values = values;
    this.driver = driver;
    this.stop = stop;
    this.errorKinds = errorKinds;
    this.progress = progress;
  }

  Outcome run() throws InterruptedException {
    int threads = (int) Math.min(config.backfillThreads, Math.max(1, config.keys / BATCH));
    List<Thread> ts = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Thread t = new Thread(this::writeBatches, "bench-backfill-" + i);
      t.setDaemon(true);
      ts.add(t);
    }
    long t0 = System.nanoTime();
    ts.forEach(Thread::start);
    for (Thread t : ts) {
      while (t.isAlive()) {
        t.join(1000);
        if (t.isAlive()) printProgress(t0);
      }
    }
    Outcome o = new Outcome(done.get(), failed.sum(), System.nanoTime() - t0);
    progress.accept(String.format(
        "[%s] backfill done: %d keys in %.1fs (%d failed)",
        driver.name(), o.done(), o.nanos() / 1e9, o.failed()));
    return o;
  }

  private void printProgress(long t0) {
    long d = done.get();
    double secs = (System.nanoTime() - t0) / 1e9;
    progress.accept(String.format(
        "[%s] backfill %d/%d keys (%.0f%%), %.0f keys/s",
        driver.name(), d, config.keys, 100.0 * d / config.keys, d / Math.max(secs, 1e-3)));
  }

  /** One backfill thread: takes the next batch of key indexes until none is left or the run stops. */
  private void writeBatches() {
    List<Driver.Op> batch = new ArrayList<>();
    while (!stop.getAsBoolean()) {
      long from = nextIndex.getAndAdd(BATCH);
      if (from >= config.keys) break;
      long to = Math.min(config.keys, from + BATCH);
      batch.clear();
      for (long k = from; k < to; k++) {
        batch.add(new Driver.Op(false, config.keyPrefix + k, values.next()));
      }
      try {
        if (driver.supportsPipelines()) {
          driver.pipeline(batch);
        } else {
          for (Driver.Op op : batch) driver.set(op.key(), op.value());
        }
      } catch (Exception e) {
        failed.add(batch.size());
        errorKinds.count("backfill " + ErrorKinds.describe(e), batch.size());
      }
      done.addAndGet(batch.size());
    }
  }
}
