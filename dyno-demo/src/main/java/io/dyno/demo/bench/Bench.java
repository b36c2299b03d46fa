package io.dyno.demo.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * One load-generator run against one {@link Driver}: optional backfill, then reader, writer and
 * mixed threads for the configured duration, paced by rate limits that may change while it runs
 * ({@link #knobs()}), with a progress {@link Sample} every interval (a line to the progress sink
 * and to every sample listener). {@link #run()} blocks and returns the {@link BenchResult}.
 */
public final class Bench {
  /** The counters of one progress interval; swapped atomically by the progress thread. */
  private static final class Interval {
    final LatencyHistogram all = new LatencyHistogram();
    final LatencyHistogram borrow = new LatencyHistogram();
    final LongAdder reads = new LongAdder();
    final LongAdder writes = new LongAdder();
    final LongAdder errors = new LongAdder();
    final long startNanos = System.nanoTime();
  }

  private final BenchConfig config;
  private final Driver driver;
  private final Consumer<String> progress;
  private final Knobs knobs;
  private final RateLimiter readLimiter;
  private final RateLimiter writeLimiter;
  private final KeyChooser keyChooser;
  private final ValueSource values;
  private final List<Consumer<Sample>> sampleListeners = new CopyOnWriteArrayList<>();
  private final AtomicReference<Interval> current = new AtomicReference<>(new Interval());
  private final LatencyHistogram totalAll = new LatencyHistogram();
  private final LatencyHistogram totalReads = new LatencyHistogram();
  private final LatencyHistogram totalWrites = new LatencyHistogram();
  private final LatencyHistogram totalBorrow = new LatencyHistogram();
  private final Map<String, LongAdder> errorKinds = new ConcurrentHashMap<>();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean stopRequested;
  private volatile boolean measuring;
  private Duration progressInterval = Duration.ofSeconds(1);
  private ServerCounters<?> serverCounters;
  private String noCountersReason;
  private String targetName = "?";
  private String label;
  private int round;
  private Duration warmup = Duration.ZERO;

  public Bench(BenchConfig config, Driver driver, Consumer<String> progress) {
    this.config = config;
    this.driver = driver;
    this.progress = progress;
    this.knobs = new Knobs(config);
    this.readLimiter = new RateLimiter(config.readRate);
    this.writeLimiter = new RateLimiter(config.writeRate);
    this.keyChooser = new KeyChooser(config);
    this.values = new ValueSource(config.valueSize, config.valueSizeMax);
    knobs.onChange(k -> {
      if (k.readRate() != readLimiter.rate()) readLimiter.setRate(k.readRate());
      if (k.writeRate() != writeLimiter.rate()) writeLimiter.setRate(k.writeRate());
      progress.accept("[" + driver.name() + "] settings now " + k.asMap());
    });
    driver.onBorrow(n -> {
      if (measuring) {
        current.get().borrow.recordNanos(n);
      }
    });
  }

  public Knobs knobs() {
    return knobs;
  }

  public BenchConfig config() {
    return config;
  }

  /** Called with every progress sample, on the progress thread. */
  public Bench onSample(Consumer<Sample> listener) {
    sampleListeners.add(listener);
    return this;
  }

  public Bench progressInterval(Duration d) {
    this.progressInterval = d;
    return this;
  }

  /** The servers' own per-node counters, when the target has them. */
  public Bench serverCounters(ServerCounters<?> counters) {
    this.serverCounters = counters;
    return this;
  }

  /** The target's counters, or (when null) why it has none: that reason is what the report shows per node. */
  public Bench serverCounters(ServerCounters<?> counters, String reasonWhenNone) {
    this.serverCounters = counters;
    this.noCountersReason = reasonWhenNone;
    return this;
  }

  /** The variant's name as the user gave it (e.g. {@code dyno:pipeline=3-10}); the driver's name when unset. */
  public Bench label(String label) {
    this.label = label;
    return this;
  }

  /**
   * Load run before the measured part and not recorded (JIT, pool growth, server buffers), with the
   * same threads and settings. Zero (the default) runs none.
   */
  public Bench warmup(Duration d) {
    this.warmup = d == null ? Duration.ZERO : d;
    return this;
  }

  /** The round of an interleaved comparison this run belongs to (0 = not part of one). */
  public Bench round(int round) {
    this.round = round;
    return this;
  }

  /** Writes every key once, nothing else; returns the keys written. */
  public long backfillOnly() throws InterruptedException {
    return backfill();
  }

  private String label() {
    return label != null ? label : driver.name();
  }

  public Bench targetName(String name) {
    this.targetName = name;
    return this;
  }

  /** Ends the run early (from any thread); {@link #run()} returns soon after. */
  public void stop() {
    stopRequested = true;
    stopped.countDown();
  }

  public String key(long index) {
    return config.keyPrefix + index;
  }

  public BenchResult run() throws InterruptedException {
    long started = System.currentTimeMillis();
    long backfillNanos = 0;
    long backfilled = 0;
    if (config.backfill) {
      long t0 = System.nanoTime();
      backfilled = backfill();
      backfillNanos = System.nanoTime() - t0;
    }
    if (!warmup.isZero()) {
      progress.accept(String.format("[%s] warm-up %.0fs (not recorded)", label(), warmup.toMillis() / 1000.0));
      List<Thread> warm = startWorkers(System.nanoTime() + warmup.toNanos());
      for (Thread w : warm) {
        w.join();
      }
    }
    driver.borrowSinceLastCall(); // drops the warm-up's and backfill's borrows
    ServerCounters.Window<?> window = serverCounters == null ? null : serverCounters.begin(config.consistency);
    Map<String, Long> clientBefore = new LinkedHashMap<>(driver.requestsByNode());

    long runStart = System.nanoTime();
    long deadline = runStart + config.duration.toNanos();
    current.set(new Interval());
    measuring = true;
    List<Thread> workers = startWorkers(deadline);

    List<Sample> samples = new ArrayList<>();
    long intervalNanos = progressInterval.toNanos();
    long next = runStart + intervalNanos;
    while (true) {
      long now = System.nanoTime();
      long wait = Math.min(next, deadline) - now;
      if (wait > 0 && stopped.await(wait, TimeUnit.NANOSECONDS)) {
        break;
      }
      now = System.nanoTime();
      if (now >= deadline) {
        break;
      }
      if (now >= next) {
        samples.add(emit(runStart, now));
        next += intervalNanos;
      }
    }
    stopRequested = true;
    for (Thread w : workers) {
      w.join(TimeUnit.SECONDS.toMillis(30));
    }
    long end = System.nanoTime();
    if (samples.isEmpty() || end - current.get().startNanos > intervalNanos / 10) {
      samples.add(emit(runStart, end));
    }
    measuring = false;

    List<NodeStat> nodes = nodeStats(window, clientBefore);
    long reads = samples.stream().mapToLong(Sample::reads).sum();
    long writes = samples.stream().mapToLong(Sample::writes).sum();
    long errors = samples.stream().mapToLong(Sample::errors).sum();
    Map<String, Long> kinds = new LinkedHashMap<>();
    errorKinds.forEach((k, v) -> kinds.put(k, v.sum()));
    boolean borrow = driver.measuresBorrow();
    BenchResult r = new BenchResult(label(), round, driver.name(), targetName, config.asMap(), started,
        backfillNanos / 1e9, backfilled, (end - runStart) / 1e9, reads, writes, errors,
        totalAll.percentileMicros(0.50), totalAll.percentileMicros(0.95), totalAll.percentileMicros(0.99),
        totalAll.percentileMicros(0.999), totalAll.percentileMicros(1.0),
        totalReads.percentileMicros(0.99), totalWrites.percentileMicros(0.99),
        borrow ? totalBorrow.percentileMicros(0.50) : -1, borrow ? totalBorrow.percentileMicros(0.99) : -1,
        Collections.unmodifiableList(samples), nodes, kinds, driver.summary());
    return r;
  }

  private List<Thread> startWorkers(long deadline) {
    List<Thread> workers = new ArrayList<>();
    int id = 0;
    for (int i = 0; i < config.readers; i++) workers.add(worker("reader-" + id++, Kind.READ, deadline));
    for (int i = 0; i < config.writers; i++) workers.add(worker("writer-" + id++, Kind.WRITE, deadline));
    for (int i = 0; i < config.threads; i++) workers.add(worker("mixed-" + id++, Kind.MIXED, deadline));
    workers.forEach(Thread::start);
    return workers;
  }

  /** Per node: the driver's own count beside the servers' counters (each "n/a" with the reason when unknown). */
  private List<NodeStat> nodeStats(ServerCounters.Window<?> window, Map<String, Long> clientBefore) {
    Map<String, Long> clientAfter = driver.requestsByNode();
    String noClient = driver.name() + " does not count requests per node";
    List<NodeStat> out = new ArrayList<>();
    if (window != null) {
      for (NodeStat n : window.end()) {
        Long c = clientAfter.get(n.node());
        out.add(n.withClient(c == null ? Count.na(noClient) : Count.of(c - clientBefore.getOrDefault(n.node(), 0L))));
      }
    } else {
      clientAfter.forEach((node, c) -> out.add(NodeStat.clientOnly(node, "", Count.of(c - clientBefore.getOrDefault(node, 0L)),
          noCountersReason != null ? noCountersReason : "the target " + targetName + " gives no access to the servers' counters")));
    }
    return out;
  }

  private Sample emit(long runStart, long now) {
    Interval iv = current.getAndSet(new Interval());
    LatencyHistogram fromDriver = driver.borrowSinceLastCall();
    if (fromDriver != null) {
      iv.borrow.add(fromDriver);
    }
    double secs = (now - iv.startNanos) / 1e9;
    totalAll.add(iv.all);
    totalBorrow.add(iv.borrow);
    boolean borrow = driver.measuresBorrow();
    Sample s = new Sample((now - runStart) / 1e9, secs, iv.reads.sum(), iv.writes.sum(), iv.errors.sum(),
        iv.all.percentileMicros(0.50), iv.all.percentileMicros(0.99), iv.all.percentileMicros(1.0),
        borrow ? iv.borrow.percentileMicros(0.50) : -1, borrow ? iv.borrow.percentileMicros(0.99) : -1,
        knobs.readRate(), knobs.writeRate());
    progress.accept(s.progressLine(label()));
    for (Consumer<Sample> l : sampleListeners) {
      l.accept(s);
    }
    return s;
  }

  /** Delivers a sample to the listeners as if an interval ended (tests of listeners such as the auto-tuner). */
  void emitForTest(Sample s) {
    for (Consumer<Sample> l : sampleListeners) {
      l.accept(s);
    }
  }

  private enum Kind { READ, WRITE, MIXED }

  private Thread worker(String name, Kind kind, long deadline) {
    Thread t = new Thread(() -> loop(kind, deadline), "bench-" + driver.name() + "-" + name);
    t.setDaemon(true);
    return t;
  }

  private void loop(Kind kind, long deadline) {
    List<Driver.Op> batch = new ArrayList<>();
    ThreadLocalRandom r = ThreadLocalRandom.current();
    while (!stopRequested && System.nanoTime() < deadline) {
      int pmin = knobs.pipelineMin();
      int pmax = knobs.pipelineMax();
      int n = pmax <= 1 ? 1 : pmin + r.nextInt(pmax - pmin + 1);
      int readPct = knobs.readPercent();
      batch.clear();
      int nReads = 0;
      for (int i = 0; i < n; i++) {
        boolean read = kind == Kind.READ || (kind == Kind.MIXED && r.nextInt(100) < readPct);
        String key = key(keyChooser.next());
        batch.add(new Driver.Op(read, key, read ? null : values.next()));
        if (read) nReads++;
      }
      int nWrites = n - nReads;
      if (nReads > 0 && !readLimiter.acquire(nReads, () -> stopRequested)) break;
      if (nWrites > 0 && !writeLimiter.acquire(nWrites, () -> stopRequested)) break;
      long t0 = System.nanoTime();
      try {
        if (pmax <= 1) {
          Driver.Op op = batch.get(0);
          if (op.read()) driver.get(op.key());
          else driver.set(op.key(), op.value());
        } else {
          driver.pipeline(batch);
        }
        long took = System.nanoTime() - t0;
        if (!measuring) {
          continue; // warm-up
        }
        Interval iv = current.get();
        for (int i = 0; i < n; i++) {
          iv.all.recordNanos(took);
        }
        for (int i = 0; i < nReads; i++) totalReads.recordNanos(took);
        for (int i = 0; i < nWrites; i++) totalWrites.recordNanos(took);
        iv.reads.add(nReads);
        iv.writes.add(nWrites);
      } catch (Exception e) {
        if (!measuring) {
          continue; // warm-up
        }
        current.get().errors.add(n);
        errorKinds.computeIfAbsent(describe(e), k -> new LongAdder()).add(n);
      }
    }
  }

  static String describe(Throwable e) {
    String msg = e.getMessage();
    if (msg != null) {
      msg = msg.replaceAll("[0-9]+", "N"); // group messages that differ only by numbers (ports, counts)
      if (msg.length() > 160) msg = msg.substring(0, 160) + "...";
    }
    return e.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
  }

  /** Writes every key once (pipelined batches of 100, several threads), printing progress. */
  private long backfill() throws InterruptedException {
    int threads = (int) Math.min(config.backfillThreads, Math.max(1, config.keys / 100));
    AtomicLong nextIndex = new AtomicLong();
    AtomicLong done = new AtomicLong();
    LongAdder failed = new LongAdder();
    List<Thread> ts = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Thread t = new Thread(() -> {
        List<Driver.Op> batch = new ArrayList<>();
        while (!stopRequested) {
          long from = nextIndex.getAndAdd(100);
          if (from >= config.keys) break;
          long to = Math.min(config.keys, from + 100);
          batch.clear();
          for (long k = from; k < to; k++) {
            batch.add(new Driver.Op(false, key(k), values.next()));
          }
          try {
            driver.pipeline(batch);
          } catch (Exception e) {
            failed.add(batch.size());
            errorKinds.computeIfAbsent("backfill " + describe(e), k -> new LongAdder()).add(batch.size());
          }
          done.addAndGet(batch.size());
        }
      }, "bench-backfill-" + i);
      t.setDaemon(true);
      ts.add(t);
    }
    long t0 = System.nanoTime();
    ts.forEach(Thread::start);
    for (Thread t : ts) {
      while (t.isAlive()) {
        t.join(1000);
        long d = done.get();
        double secs = (System.nanoTime() - t0) / 1e9;
        if (t.isAlive()) {
          progress.accept(String.format("[%s] backfill %d/%d keys (%.0f%%), %.0f keys/s", driver.name(), d, config.keys,
              100.0 * d / config.keys, d / Math.max(secs, 1e-3)));
        }
      }
    }
    progress.accept(String.format("[%s] backfill done: %d keys in %.1fs (%d failed)", driver.name(), done.get(),
        (System.nanoTime() - t0) / 1e9, failed.sum()));
    return done.get() - failed.sum();
  }
}
