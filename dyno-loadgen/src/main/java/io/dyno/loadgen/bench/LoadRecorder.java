package io.dyno.loadgen.bench;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * What the callers measure, and the totals it adds up to. Callers record each operation or batch
 * (any thread, lock-free) while the measured part runs; the progress thread closes an interval
 * into a {@link Sample} and folds it into fixed-size totals. Memory stays flat however long a run
 * goes: latencies go to HdrHistogram {@link Recorder}s and only the last {@code maxSamples}
 * samples are kept.
 */
final class LoadRecorder {
  /** The counters of one progress interval; swapped atomically when the interval closes. */
  private static final class Interval {
    final LongAdder reads = new LongAdder();
    final LongAdder writes = new LongAdder();
    final LongAdder errors = new LongAdder();
    final Map<String, LongAdder> errorKinds = new ConcurrentHashMap<>();
    final long startNanos = System.nanoTime();
  }

  /** The run's totals at one moment, latencies in µs (borrow -1 when the driver does not measure it). */
  record Totals(
      long reads,
      long writes,
      long errors,
      long p50,
      long p95,
      long p99,
      long p999,
      long max,
      long readP99,
      long readP999,
      long readMax,
      long writeP99,
      long borrowP50,
      long borrowP99,
      List<Sample> samples) {}

  private final AtomicReference<Interval> current = new AtomicReference<>(new Interval());
  private final Recorder readRecorder = Latencies.recorder();
  private final Recorder writeRecorder = Latencies.recorder();
  private final Recorder borrowRecorder = Latencies.recorder();
  private final ErrorKinds errorKinds;
  private volatile boolean measuring;
  // The progress thread's reusable interval histograms.
  private Histogram readInterval;
  private Histogram writeInterval;
  private Histogram borrowInterval;
  // Written by the progress thread, read by any: guarded by "this".
  private final Histogram totalAll = Latencies.histogram();
  private final Histogram totalReads = Latencies.histogram();
  private final Histogram totalWrites = Latencies.histogram();
  private final Histogram totalBorrow = Latencies.histogram();
  private final ArrayDeque<Sample> samples = new ArrayDeque<>();
  private int maxSamples = 3600;
  private long readsCount;
  private long writesCount;
  private long errorsCount;

  LoadRecorder(ErrorKinds errorKinds) {
    this.errorKinds = errorKinds;
  }

  synchronized void keepSamples(int max) {
    this.maxSamples = max;
  }

  /** From now on operations count: a fresh interval, the warm-up's latencies dropped. */
  void startMeasuring() {
    current.set(new Interval());
    readRecorder.reset();
    writeRecorder.reset();
    borrowRecorder.reset();
    measuring = true;
  }

  void stopMeasuring() {
    measuring = false;
  }

  /** One finished operation or batch: its latency and counts (nothing outside the measured part). */
  void done(int nReads, int nWrites, long nanos) {
    if (!measuring) return;
    long took = Latencies.micros(nanos);
    if (nReads > 0) readRecorder.recordValueWithCount(took, nReads);
    if (nWrites > 0) writeRecorder.recordValueWithCount(took, nWrites);
    Interval iv = current.get();
    iv.reads.add(nReads);
    iv.writes.add(nWrites);
  }

  /** {@code n} operations failed with {@code e} (nothing outside the measured part). */
  void failed(int n, Throwable e) {
    if (!measuring) return;
    Interval iv = current.get();
    iv.errors.add(n);
    String kind = errorKinds.count(ErrorKinds.describe(e), n);
    iv.errorKinds.computeIfAbsent(kind, k -> new LongAdder()).add(n);
  }

  /** The time a call waited for a connection (nothing outside the measured part). */
  void borrowed(long nanos) {
    if (measuring) borrowRecorder.recordValue(Latencies.micros(nanos));
  }

  /** What a sample needs beside the recorded figures: the driver's borrow delays and the settings' rates. */
  record IntervalContext(
      Histogram driverBorrow,
      boolean measuresBorrow,
      double readRate,
      double writeRate,
      Map<String, Long> perNode) {}

  /** Ends the interval at {@code now} and starts the next; returns its sample, already kept and added to the totals. */
  Sample closeInterval(long runStart, long now, IntervalContext ctx) {
    Interval iv = current.getAndSet(new Interval());
    readInterval = readRecorder.getIntervalHistogram(readInterval);
    writeInterval = writeRecorder.getIntervalHistogram(writeInterval);
    borrowInterval = borrowRecorder.getIntervalHistogram(borrowInterval);
    if (ctx.driverBorrow() != null) borrowInterval.add(ctx.driverBorrow());
    Histogram all = Latencies.histogram();
    all.add(readInterval);
    all.add(writeInterval);
    Map<String, Long> counted = new HashMap<>();
    iv.errorKinds.forEach((k, v) -> counted.put(k, v.sum()));
    Map<String, Long> kinds =
        counted.isEmpty() ? Map.of() : counted; // kept for an hour: no empty maps
    boolean borrow = ctx.measuresBorrow();
    Sample s = new Sample(
        (now - runStart) / 1e9,
        (now - iv.startNanos) / 1e9,
        iv.reads.sum(),
        iv.writes.sum(),
        iv.errors.sum(),
        Latencies.percentile(all, 0.50),
        Latencies.percentile(all, 0.99),
        Latencies.percentile(all, 1.0),
        borrow ? Latencies.percentile(borrowInterval, 0.50) : -1,
        borrow ? Latencies.percentile(borrowInterval, 0.99) : -1,
        ctx.readRate(),
        ctx.writeRate(),
        Latencies.percentile(readInterval, 0.50),
        Latencies.percentile(readInterval, 0.99),
        Latencies.percentile(writeInterval, 0.50),
        Latencies.percentile(writeInterval, 0.99),
        kinds,
        ctx.perNode());
    synchronized (this) {
      totalAll.add(all);
      totalReads.add(readInterval);
      totalWrites.add(writeInterval);
      totalBorrow.add(borrowInterval);
      readsCount += s.reads();
      writesCount += s.writes();
      errorsCount += s.errors();
      samples.addLast(s);
      while (samples.size() > maxSamples) samples.removeFirst();
    }
    return s;
  }

  synchronized boolean anySample() {
    return !samples.isEmpty();
  }

  /** The kept samples whose time is after {@code afterT} seconds (all with a negative value). */
  synchronized List<Sample> samplesAfter(double afterT) {
    List<Sample> out = new ArrayList<>();
    for (Sample s : samples) {
      if (s.t() > afterT) out.add(s);
    }
    return out;
  }

  /** Reads, writes and errors so far. */
  record Counts(long reads, long writes, long errors) {}

  /** The counts alone (cheap: for a status polled every second). */
  synchronized Counts counts() {
    return new Counts(readsCount, writesCount, errorsCount);
  }

  /** Operations completed so far (reads and writes). */
  synchronized long operations() {
    return readsCount + writesCount;
  }

  synchronized Totals totals(boolean measuresBorrow) {
    return new Totals(
        readsCount,
        writesCount,
        errorsCount,
        Latencies.percentile(totalAll, 0.50),
        Latencies.percentile(totalAll, 0.95),
        Latencies.percentile(totalAll, 0.99),
        Latencies.percentile(totalAll, 0.999),
        Latencies.percentile(totalAll, 1.0),
        Latencies.percentile(totalReads, 0.99),
        Latencies.percentile(totalReads, 0.999),
        Latencies.percentile(totalReads, 1.0),
        Latencies.percentile(totalWrites, 0.99),
        measuresBorrow ? Latencies.percentile(totalBorrow, 0.50) : -1,
        measuresBorrow ? Latencies.percentile(totalBorrow, 0.99) : -1,
        Collections.unmodifiableList(new ArrayList<>(samples)));
  }
}
