package io.dyno.loadgen.bench;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * One load-generator run against one {@link Driver}: optional backfill, then reader, writer and
 * mixed threads for the configured duration or, when it has none, until {@link #stop()}. Every
 * runtime setting ({@link #knobs()}) may change while it runs, thread counts included; the load
 * can be paused and resumed and a backfill started at any time. A progress {@link Sample} goes out
 * every interval (a line to the progress sink and to every sample listener).
 *
 * <p>Memory stays flat however long it runs: latencies go to HdrHistogram {@link Recorder}s whose
 * interval histograms are folded into fixed-size totals, only the last {@code maxSamples} samples
 * and {@code maxEvents} events are kept, and error kinds are capped. {@link #snapshot()} gives the
 * result so far at any moment (the report written while it runs); {@link #run()} blocks and
 * returns the final one.
 */
public final class Bench {
  private static final int MAX_ERROR_KINDS = 50;

  /** The counters of one progress interval; swapped atomically by the progress thread. */
  private static final class Interval {
    final LongAdder reads = new LongAdder();
    final LongAdder writes = new LongAdder();
    final LongAdder errors = new LongAdder();
    final Map<String, LongAdder> errorKinds = new ConcurrentHashMap<>();
    final long startNanos = System.nanoTime();
  }

  /** Something that happened during the run, at {@code t} seconds after the measured part began. */
  public record Event(double t, String kind, String text) {}

  private enum Kind {
    READ,
    WRITE,
    MIXED
  }

  private final BenchConfig initial;
  private final Driver driver;
  private final Consumer<String> progress;
  private final Knobs knobs;
  private final RateLimiter readLimiter;
  private final RateLimiter writeLimiter;
  private final List<Consumer<Sample>> sampleListeners = new CopyOnWriteArrayList<>();
  private final AtomicReference<Interval> current = new AtomicReference<>(new Interval());
  private final Recorder readRecorder = Latencies.recorder();
  private final Recorder writeRecorder = Latencies.recorder();
  private final Recorder borrowRecorder = Latencies.recorder();
  private Histogram readInterval;
  private Histogram writeInterval;
  private Histogram borrowInterval;
  // Totals and the kept samples/events: written by the progress thread, read by snapshot(); guarded
  // by "this".
  private final Histogram totalAll = Latencies.histogram();
  private final Histogram totalReads = Latencies.histogram();
  private final Histogram totalWrites = Latencies.histogram();
  private final Histogram totalBorrow = Latencies.histogram();
  private final ArrayDeque<Sample> samples = new ArrayDeque<>();
  private final Map<String, String> nodeNames = new ConcurrentHashMap<>();
  private final ArrayDeque<Event> events = new ArrayDeque<>();
  private long samplesDropped;
  private long totalReadsCount;
  private long totalWritesCount;
  private long totalErrorsCount;
  private final Map<String, LongAdder> errorKinds = new ConcurrentHashMap<>();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final Map<Kind, List<Thread>> workers = new ConcurrentHashMap<>();
  private volatile boolean stopRequested;
  private volatile boolean measuring;
  private volatile boolean paused;
  private volatile boolean backfilling;
  private volatile long runStartNanos;
  private volatile long startedAtMillis = System.currentTimeMillis();
  private volatile long backfillNanos;
  private volatile long backfilled;
  private volatile double endSeconds = -1;
  /** Callers of the measured part, and those still blocked in a call {@link Callers#GRACE} after its end. */
  private volatile int callerCount;

  private volatile int blockedCallers;
  private volatile String stall = "";
  private Duration grace = Callers.GRACE;
  private Map<String, Long> lastNodeCounts = Map.of();
  private ServerCounters.Window<?> serverWindow;
  private Map<String, Long> clientBefore = Map.of();
  private Duration progressInterval = Duration.ofSeconds(1);
  private int maxSamples = 3600;
  private int maxEvents = 1000;
  private ServerCounters<?> serverCounters;
  private String noCountersReason;
  private ServerCpu serverCpu;
  private String noServerCpuReason = "this target does not say which server processes it runs";
  private volatile ServerCpu.Reading cpuBefore;
  private volatile ServerCpu.Use cpuUse;
  private ClientCpu clientCpu = new ClientCpu(null);
  private volatile ClientCpu.Reading clientCpuBefore;
  private volatile ClientCpu.Use clientCpuUse;
  private String targetName = "?";
  private String label;
  private int round;
  private Duration warmup = Duration.ZERO;

  public Bench(BenchConfig config, Driver driver, Consumer<String> progress) {
    this.initial = config;
    this.driver = driver;
    this.progress = progress;
    this.knobs = new Knobs(config);
    this.readLimiter = new RateLimiter(config.readRate);
    this.writeLimiter = new RateLimiter(config.writeRate);
    if (config.virtualThreads > 0 && !Callers.virtualThreadsAvailable()) {
      throw new IllegalArgumentException(Callers.virtualThreadsUnavailable(
          "setting virtualThreads (--virtual-threads)", config.virtualThreads));
    }
    if (config.consistency != driver.consistency()) {
      driver.consistency(config.consistency);
    }
    knobs.veto(c -> {
      if (c.consistency != knobs.consistency() && c.consistency != driver.consistency()) {
        driver.consistency(
            c.consistency); // throws when the driver refuses; applied here so a refusal changes
        // nothing
      }
      // Virtual callers replace the platform threads: a thread count changed mid-run would silently
      // do nothing.
      SettingValues.require(
          c.virtualThreads == 0
              || (c.readers == config.readers
                  && c.writers == config.writers
                  && c.threads == config.threads),
          "readers/writers/threads",
          "the callers are " + c.virtualThreads
              + " virtual threads (virtualThreads), fixed for the run");
    });
    knobs.onChange(k -> {
      if (k.readRate() != readLimiter.rate()) readLimiter.setRate(k.readRate());
      if (k.writeRate() != writeLimiter.rate()) writeLimiter.setRate(k.writeRate());
      String text = "settings now " + k.asMap();
      event("settings", changedText(k));
      progress.accept("[" + driver.name() + "] " + text);
    });
    driver.onBorrow(n -> {
      if (measuring) {
        borrowRecorder.recordValue(Latencies.micros(n));
      }
    });
  }

  private Map<String, String> lastKnobs;

  /** The settings that differ from the previous change (the event text: "readRate=2000"). */
  private synchronized String changedText(Knobs k) {
    Map<String, String> now = k.asMap();
    List<String> parts = new ArrayList<>();
    Map<String, String> before = lastKnobs == null ? new Knobs(initial).asMap() : lastKnobs;
    now.forEach((n, v) -> {
      if (!v.equals(before.get(n))) parts.add(n + "=" + v);
    });
    lastKnobs = now;
    return String.join(" ", parts);
  }

  public Knobs knobs() {
    return knobs;
  }

  /** The configuration the run started with (see {@link Knobs#config()} for the one in force). */
  public BenchConfig config() {
    return initial;
  }

  public Driver driver() {
    return driver;
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

  /** How many of the latest samples and events are kept (older ones are dropped; the totals keep everything). */
  public Bench keep(int samples, int events) {
    SettingValues.require(samples >= 10, "keepSamples", "must be >= 10, was " + samples);
    SettingValues.require(events >= 10, "keepEvents", "must be >= 10, was " + events);
    this.maxSamples = samples;
    this.maxEvents = events;
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

  /** How the client process's CPU is read (by default all of this JVM's: no servers run in it). */
  public Bench clientCpu(ClientCpu cpu) {
    this.clientCpu = cpu;
    return this;
  }

  /** The target's server processes, or (when null) why their CPU is not measured: that reason is what the report shows. */
  public Bench serverCpu(ServerCpu cpu, String reasonWhenNone) {
    this.serverCpu = cpu;
    this.noServerCpuReason = reasonWhenNone;
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

  /** How long callers may take to return after the end before they count as blocked (default {@link Callers#GRACE}). */
  Bench grace(Duration d) {
    this.grace = d;
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

  /** Ends the run (from any thread); {@link #run()} returns soon after. */
  public void stop() {
    if (!stopRequested) event("stop", "run stopped");
    stopRequested = true;
    stopped.countDown();
  }

  public boolean stopping() {
    return stopRequested;
  }

  /** Pauses the load (threads idle, samples go on with zero operations) until {@link #resume()}. */
  public void pause() {
    if (!paused) event("pause", "load paused");
    paused = true;
  }

  public void resume() {
    if (paused) event("start", "load started");
    paused = false;
  }

  public boolean paused() {
    return paused;
  }

  public boolean backfilling() {
    return backfilling;
  }

  /** Starts a backfill of every key in the background (the load goes on beside it); false when one is running. */
  public synchronized boolean backfillNow() {
    if (backfilling) return false;
    Thread t = new Thread(
        () -> {
          try {
            backfill();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        },
        "bench-backfill-now");
    t.setDaemon(true);
    backfilling = true;
    t.start();
    return true;
  }

  /** Records an event (a fault injected, a node revived, a setting changed) on the run's time line. */
  public void event(String kind, String text) {
    long start = runStartNanos;
    double t = start == 0 ? 0 : (System.nanoTime() - start) / 1e9;
    synchronized (this) {
      events.addLast(new Event(t, kind, text));
      while (events.size() > maxEvents) events.removeFirst();
    }
  }

  public synchronized List<Event> events() {
    return new ArrayList<>(events);
  }

  /** The kept samples whose time is after {@code afterT} seconds (all with a negative value). */
  public synchronized List<Sample> samplesAfter(double afterT) {
    List<Sample> out = new ArrayList<>();
    for (Sample s : samples) {
      if (s.t() > afterT) out.add(s);
    }
    return out;
  }

  /** Seconds since the measured part began (0 before). */
  public double elapsedSeconds() {
    long start = runStartNanos;
    return start == 0 ? 0 : (System.nanoTime() - start) / 1e9;
  }

  public String key(long index) {
    return knobs.config().keyPrefix + index;
  }

  public BenchResult run() throws InterruptedException {
    startedAtMillis = System.currentTimeMillis();
    BenchConfig config = initial;
    if (config.async > 0 && !driver.supportsAsync()) {
      throw new IllegalArgumentException("setting async: driver " + driver.name()
          + " has no asynchronous API" + " (dyno, dyno-pooled and lettuce have one)");
    }
    if (config.pipelineMax > 1 && !driver.supportsPipelines()) {
      throw new IllegalArgumentException(
          "setting pipeline: driver " + driver.name() + " has no pipelines in this bench");
    }
    if (config.backfill) {
      backfilling = true;
      backfill();
    }
    if (!warmup.isZero()) {
      progress.accept(
          String.format("[%s] warm-up %.0fs (not recorded)", label(), warmup.toMillis() / 1000.0));
      long warmEnd = System.nanoTime() + warmup.toNanos();
      List<Thread> warm = new ArrayList<>();
      for (Kind k : Kind.values()) {
        for (int i = 0; i < wanted(k); i++) warm.add(startWorker(k, i, warmEnd, true));
      }
      int stuck = Callers.awaitEnd(warm, warmEnd + grace.toNanos());
      if (stuck > 0) {
        String text = Callers.blockedText(label(), stuck, warm.size(), grace, "the warm-up's end");
        progress.accept("[" + label() + "] " + text);
        event("stall", text);
      }
    }
    driver.borrowSinceLastCall(); // drops the warm-up's and backfill's borrows
    serverWindow = serverCounters == null ? null : serverCounters.begin(config.consistency);
    clientBefore = new LinkedHashMap<>(driver.requestsByNode());
    lastNodeCounts = clientBefore;
    // Read last before the load starts: the counters' snapshot above talks to the servers too.
    cpuBefore = serverCpu == null ? null : serverCpu.read();
    clientCpuBefore = clientCpu.read();

    long runStart = System.nanoTime();
    long deadline = config.endless() ? Long.MAX_VALUE : runStart + config.duration.toNanos();
    current.set(new Interval());
    readRecorder.reset();
    writeRecorder.reset();
    borrowRecorder.reset();
    runStartNanos = runStart;
    measuring = true;
    event(
        "start",
        config.endless()
            ? "run started (endless: until stopped)"
            : "run started for " + config.duration.toSeconds() + " s");
    adjustWorkers(deadline);

    long intervalNanos = progressInterval.toNanos();
    long next = runStart + intervalNanos;
    long lastEmit = runStart;
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
        emit(runStart, now);
        lastEmit = now;
        next += intervalNanos;
        if (next < now)
          next = now + intervalNanos; // a stalled machine: no burst of catch-up samples
        adjustWorkers(deadline);
      }
    }
    stopRequested = true;
    long end = System.nanoTime();
    // A call in flight at the end is counted when it completes within the grace period, as the
    // drivers'
    // per-node request counts count it (the report checks both agree); a caller still blocked after
    // it
    // is a stall, and its call is not counted.
    List<Thread> callers = new ArrayList<>();
    workers.values().forEach(callers::addAll);
    callerCount = callers.size();
    blockedCallers = Callers.awaitEnd(callers, end + grace.toNanos());
    measuring = false;
    if (blockedCallers > 0) {
      stall = Callers.blockedText(label(), blockedCallers, callerCount, grace, "the end")
          + " (a stalled driver: their calls are not counted)";
      progress.accept("[" + label() + "] " + stall);
      event("stall", stall);
    }
    // Read first once the load stopped, before the counters' snapshot (which polls the servers
    // until they settle).
    ServerCpu.Reading cpuAfter = serverCpu == null ? null : serverCpu.read();
    ClientCpu.Reading clientCpuAfter = clientCpu.read();
    boolean any;
    synchronized (this) {
      any = !samples.isEmpty();
    }
    if (!any || end - lastEmit > intervalNanos / 10) {
      emit(runStart, end);
    }
    cpuUse = cpuUse(cpuAfter);
    clientCpuUse = clientCpuUse(clientCpuAfter);
    endSeconds = (end - runStart) / 1e9;
    return result(nodeStats(serverWindow, clientBefore, true), cpuUse, clientCpuUse, endSeconds);
  }

  /** Cumulative reads, writes, errors and seconds so far (cheap: no server counters read). */
  public synchronized Map<String, Object> totals() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("reads", totalReadsCount);
    m.put("writes", totalWritesCount);
    m.put("errors", totalErrorsCount);
    m.put("seconds", endSeconds >= 0 ? endSeconds : elapsedSeconds());
    return m;
  }

  /** The result so far, while the run goes on (server counters are read at this moment, the window stays open). */
  public BenchResult snapshot() {
    double secs = endSeconds >= 0 ? endSeconds : elapsedSeconds();
    ServerCpu.Use cpu = endSeconds >= 0
        ? cpuUse
        : cpuUse(serverCpu == null || cpuBefore == null ? null : serverCpu.read());
    ClientCpu.Use client = endSeconds >= 0 ? clientCpuUse : clientCpuUse(clientCpu.read());
    return result(nodeStats(serverWindow, clientBefore, false), cpu, client, secs);
  }

  /** Server CPU from the start of the measured part to {@code now}, per operation completed so far. */
  private ServerCpu.Use cpuUse(ServerCpu.Reading now) {
    if (serverCpu == null) return ServerCpu.Use.na(noServerCpuReason);
    if (cpuBefore == null || now == null)
      return ServerCpu.Use.na("the measured part has not started");
    long ops;
    synchronized (this) {
      ops = totalReadsCount + totalWritesCount;
    }
    return ServerCpu.between(cpuBefore, now, ops);
  }

  /** The client process's CPU from the start of the measured part to {@code now}, per operation completed so far. */
  private ClientCpu.Use clientCpuUse(ClientCpu.Reading now) {
    ClientCpu.Reading before = clientCpuBefore;
    if (before == null) return ClientCpu.Use.na("the measured part has not started");
    long ops;
    synchronized (this) {
      ops = totalReadsCount + totalWritesCount;
    }
    return ClientCpu.between(before, now, ops);
  }

  private BenchResult result(
      List<NodeStat> nodes, ServerCpu.Use cpu, ClientCpu.Use client, double seconds) {
    Map<String, Long> kinds = new LinkedHashMap<>();
    errorKinds.forEach((k, v) -> kinds.put(k, v.sum()));
    boolean borrow = driver.measuresBorrow();
    synchronized (this) {
      return new BenchResult(
          label(),
          round,
          driver.name(),
          targetName,
          knobs.config().asMap(),
          startedAtMillis,
          backfillNanos / 1e9,
          backfilled,
          seconds,
          totalReadsCount,
          totalWritesCount,
          totalErrorsCount,
          Latencies.percentile(totalAll, 0.50),
          Latencies.percentile(totalAll, 0.95),
          Latencies.percentile(totalAll, 0.99),
          Latencies.percentile(totalAll, 0.999),
          Latencies.percentile(totalAll, 1.0),
          Latencies.percentile(totalReads, 0.99),
          Latencies.percentile(totalWrites, 0.99),
          borrow ? Latencies.percentile(totalBorrow, 0.50) : -1,
          borrow ? Latencies.percentile(totalBorrow, 0.99) : -1,
          Collections.unmodifiableList(new ArrayList<>(samples)),
          nodes,
          cpu,
          client,
          kinds,
          driver.summary(),
          Latencies.percentile(totalReads, 0.999),
          Latencies.percentile(totalReads, 1.0),
          Callers.describe(knobs.config()),
          endSeconds >= 0 ? callerCount : Callers.alive(workers.values()),
          blockedCallers,
          stall);
    }
  }

  private int wanted(Kind k) {
    BenchConfig c = knobs.config();
    if (c.virtualThreads > 0) {
      return k == Kind.MIXED
          ? c.virtualThreads
          : 0; // they replace all three kinds; the read percent mixes GET and SET
    }
    return switch (k) {
      case READ -> c.readers;
      case WRITE -> c.writers;
      case MIXED -> c.threads;
    };
  }

  /** Starts the threads the settings ask for beyond those alive (surplus ones notice their slot is gone and end). */
  private void adjustWorkers(long deadline) {
    if (stopRequested) return;
    for (Kind k : Kind.values()) {
      List<Thread> slots = workers.computeIfAbsent(k, x -> new CopyOnWriteArrayList<>());
      slots.removeIf(t -> !t.isAlive());
      int want = wanted(k);
      Set<Integer> alive = new HashSet<>();
      for (Thread t : slots) alive.add(slotOf(t));
      for (int i = 0; i < want; i++) {
        if (!alive.contains(i)) slots.add(startWorker(k, i, deadline, false));
      }
    }
  }

  private static int slotOf(Thread t) {
    String n = t.getName();
    return Integer.parseInt(n.substring(n.lastIndexOf('-') + 1));
  }

  /**
   * Warm-up callers are named apart ("bench-dyno-warmup-mixed-3"): what a thread dump or a JFR
   * recording shows of them (first-use class loading, say) is then told from the measured part's.
   */
  private Thread startWorker(Kind kind, int slot, long deadline, boolean warm) {
    return Callers.start(
        knobs.config().virtualThreads > 0,
        "bench-" + driver.name() + (warm ? "-warmup-" : "-") + kind.name().toLowerCase() + "-"
            + slot,
        () -> loop(kind, slot, deadline));
  }

  /** Per node: the driver's own count beside the servers' counters (each "n/a" with the reason when unknown). */
  private List<NodeStat> nodeStats(
      ServerCounters.Window<?> window, Map<String, Long> before, boolean end) {
    Map<String, Long> clientAfter = driver.requestsByNode();
    String noClient = driver.name() + " does not count requests per node";
    List<NodeStat> out = new ArrayList<>();
    List<NodeStat> server = null;
    String serverFailure = null;
    if (window != null) {
      try {
        server = end ? window.end() : window.peek();
      } catch (RuntimeException e) {
        serverFailure = "the servers' counters could not be read at the end: " + e.getMessage();
      }
    }
    if (server != null) {
      for (NodeStat n : server) {
        Long c = clientAfter.get(n.node());
        out.add(n.withClient(
            c == null ? Count.na(noClient) : Count.of(c - before.getOrDefault(n.node(), 0L))));
      }
    } else {
      String reason = serverFailure != null ? serverFailure : noCountersReason;
      clientAfter.forEach((node, c) -> out.add(NodeStat.clientOnly(
          node,
          "",
          Count.of(c - before.getOrDefault(node, 0L)),
          reason != null
              ? reason
              : "the target " + targetName + " gives no access to the servers' counters")));
    }
    return out;
  }

  /**
   * One String per node for all the samples kept (the driver makes new ones on each call): an hour
   * of samples would otherwise hold 3600 copies of every node's name.
   */
  private String nodeName(String n) {
    String known = nodeNames.putIfAbsent(n, n);
    return known != null ? known : n;
  }

  private Sample emit(long runStart, long now) {
    Interval iv = current.getAndSet(new Interval());
    readInterval = readRecorder.getIntervalHistogram(readInterval);
    writeInterval = writeRecorder.getIntervalHistogram(writeInterval);
    borrowInterval = borrowRecorder.getIntervalHistogram(borrowInterval);
    Histogram fromDriver = driver.borrowSinceLastCall();
    if (fromDriver != null) {
      borrowInterval.add(fromDriver);
    }
    Histogram all = Latencies.histogram();
    all.add(readInterval);
    all.add(writeInterval);
    Map<String, Long> nodeNow = driver.requestsByNode();
    Map<String, Long> perNode = new LinkedHashMap<>();
    nodeNow.forEach((n, c) -> perNode.put(nodeName(n), c - lastNodeCounts.getOrDefault(n, 0L)));
    lastNodeCounts = nodeNow;
    Map<String, Long> counted = new HashMap<>();
    iv.errorKinds.forEach((k, v) -> counted.put(k, v.sum()));
    Map<String, Long> kinds =
        counted.isEmpty() ? Map.of() : counted; // kept for an hour: no empty maps
    double secs = (now - iv.startNanos) / 1e9;
    boolean borrow = driver.measuresBorrow();
    BenchConfig c = knobs.config();
    Sample s = new Sample(
        (now - runStart) / 1e9,
        secs,
        iv.reads.sum(),
        iv.writes.sum(),
        iv.errors.sum(),
        Latencies.percentile(all, 0.50),
        Latencies.percentile(all, 0.99),
        Latencies.percentile(all, 1.0),
        borrow ? Latencies.percentile(borrowInterval, 0.50) : -1,
        borrow ? Latencies.percentile(borrowInterval, 0.99) : -1,
        c.readRate,
        c.writeRate,
        Latencies.percentile(readInterval, 0.50),
        Latencies.percentile(readInterval, 0.99),
        Latencies.percentile(writeInterval, 0.50),
        Latencies.percentile(writeInterval, 0.99),
        kinds,
        perNode);
    synchronized (this) {
      totalAll.add(all);
      totalReads.add(readInterval);
      totalWrites.add(writeInterval);
      totalBorrow.add(borrowInterval);
      totalReadsCount += s.reads();
      totalWritesCount += s.writes();
      totalErrorsCount += s.errors();
      samples.addLast(s);
      while (samples.size() > maxSamples) {
        samples.removeFirst();
        samplesDropped++;
      }
    }
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

  private void loop(Kind kind, int slot, long deadline) {
    if (knobs.config().async > 0) {
      asyncLoop(kind, slot, deadline);
      return;
    }
    List<Driver.Op> batch = new ArrayList<>();
    ThreadLocalRandom r = ThreadLocalRandom.current();
    while (!stopRequested && System.nanoTime() < deadline && slot < wanted(kind)) {
      if (paused) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        continue;
      }
      BenchConfig c = knobs.config();
      KeyChooser keys = knobs.keyChooser();
      ValueSource values = knobs.values();
      int pmin = c.pipelineMin;
      int pmax = c.pipelineMax;
      int n = pmax <= 1 ? 1 : pmin + r.nextInt(pmax - pmin + 1);
      int readPct = c.readPercent;
      batch.clear();
      int nReads = 0;
      for (int i = 0; i < n; i++) {
        boolean read = kind == Kind.READ || (kind == Kind.MIXED && r.nextInt(100) < readPct);
        String key = c.keyPrefix + keys.next();
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
        recordDone(nReads, nWrites, System.nanoTime() - t0);
      } catch (Exception e) {
        recordFailed(n, e);
      }
    }
  }

  /** One finished operation or batch: its latency and counts (not during warm-up). Thread-safe. */
  private void recordDone(int nReads, int nWrites, long nanos) {
    if (!measuring) {
      return; // warm-up
    }
    long took = Latencies.micros(nanos);
    if (nReads > 0) readRecorder.recordValueWithCount(took, nReads);
    if (nWrites > 0) writeRecorder.recordValueWithCount(took, nWrites);
    Interval iv = current.get();
    iv.reads.add(nReads);
    iv.writes.add(nWrites);
  }

  private void recordFailed(int n, Throwable e) {
    if (!measuring) {
      return; // warm-up
    }
    Interval iv = current.get();
    iv.errors.add(n);
    String kindText = errorKind(describe(e));
    iv.errorKinds.computeIfAbsent(kindText, k -> new LongAdder()).add(n);
    errorKinds.computeIfAbsent(kindText, k -> new LongAdder()).add(n);
  }

  /**
   * {@code async=N}: the load threads submit single commands through the driver's asynchronous API,
   * together never more than N unanswered (a semaphore); each completion, on the client's I/O
   * thread, records its latency from submit and returns its permit. The rate limiters, key chooser,
   * read/write mix and values are the blocking loop's.
   */
  private void asyncLoop(Kind kind, int slot, long deadline) {
    Semaphore inFlight = asyncPermits();
    ThreadLocalRandom r = ThreadLocalRandom.current();
    while (!stopRequested && System.nanoTime() < deadline && slot < wanted(kind)) {
      if (paused) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        continue;
      }
      try {
        if (!inFlight.tryAcquire(20, TimeUnit.MILLISECONDS)) {
          continue;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      BenchConfig c = knobs.config();
      boolean read = kind == Kind.READ || (kind == Kind.MIXED && r.nextInt(100) < c.readPercent);
      String key = c.keyPrefix + knobs.keyChooser().next();
      if (!(read ? readLimiter : writeLimiter).acquire(1, () -> stopRequested)) {
        inFlight.release();
        break;
      }
      long t0 = System.nanoTime();
      CompletableFuture<String> f;
      try {
        f = read ? driver.getAsync(key) : driver.setAsync(key, knobs.values().next());
      } catch (RuntimeException e) {
        inFlight.release();
        recordFailed(1, e);
        continue;
      }
      f.whenComplete((v, e) -> {
        inFlight.release();
        if (e == null) {
          recordDone(read ? 1 : 0, read ? 0 : 1, System.nanoTime() - t0);
        } else {
          recordFailed(
              1, e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
        }
      });
    }
  }

  private Semaphore asyncSemaphore;

  /** One semaphore of {@code async} permits for the whole run (all load threads share it). */
  private synchronized Semaphore asyncPermits() {
    if (asyncSemaphore == null) {
      asyncSemaphore = new Semaphore(knobs.config().async);
    }
    return asyncSemaphore;
  }

  /** Requests still unanswered in async mode (0 otherwise). */
  int asyncInFlight() {
    Semaphore s = asyncSemaphore;
    return s == null ? 0 : knobs.config().async - s.availablePermits();
  }

  /** Caps the distinct error kinds kept (messages that differ in more than numbers could otherwise grow without end). */
  private String errorKind(String text) {
    if (errorKinds.containsKey(text) || errorKinds.size() < MAX_ERROR_KINDS) return text;
    return "other (more than " + MAX_ERROR_KINDS + " kinds of error)";
  }

  static String describe(Throwable e) {
    String msg = e.getMessage();
    if (msg != null) {
      msg = msg.replaceAll(
          "[0-9]+", "N"); // group messages that differ only by numbers (ports, counts)
      if (msg.length() > 160) msg = msg.substring(0, 160) + "...";
    }
    return e.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
  }

  /** Writes every key once (pipelined batches of 100, several threads), printing progress. */
  private long backfill() throws InterruptedException {
    BenchConfig config = knobs.config();
    backfilling = true;
    event("backfill", "backfill of " + config.keys + " keys started");
    int threads = (int) Math.min(config.backfillThreads, Math.max(1, config.keys / 100));
    AtomicLong nextIndex = new AtomicLong();
    AtomicLong done = new AtomicLong();
    LongAdder failed = new LongAdder();
    ValueSource values = knobs.values();
    List<Thread> ts = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      Thread t = new Thread(
          () -> {
            List<Driver.Op> batch = new ArrayList<>();
            while (!stopRequested) {
              long from = nextIndex.getAndAdd(100);
              if (from >= config.keys) break;
              long to = Math.min(config.keys, from + 100);
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
                errorKinds
                    .computeIfAbsent(errorKind("backfill " + describe(e)), k -> new LongAdder())
                    .add(batch.size());
              }
              done.addAndGet(batch.size());
            }
          },
          "bench-backfill-" + i);
      t.setDaemon(true);
      ts.add(t);
    }
    long t0 = System.nanoTime();
    try {
      ts.forEach(Thread::start);
      for (Thread t : ts) {
        while (t.isAlive()) {
          t.join(1000);
          long d = done.get();
          double secs = (System.nanoTime() - t0) / 1e9;
          if (t.isAlive()) {
            progress.accept(String.format(
                "[%s] backfill %d/%d keys (%.0f%%), %.0f keys/s",
                driver.name(), d, config.keys, 100.0 * d / config.keys, d / Math.max(secs, 1e-3)));
          }
        }
      }
      backfillNanos = System.nanoTime() - t0;
      backfilled = done.get() - failed.sum();
      progress.accept(String.format(
          "[%s] backfill done: %d keys in %.1fs (%d failed)",
          driver.name(), done.get(), (System.nanoTime() - t0) / 1e9, failed.sum()));
      event(
          "backfill",
          String.format(
              "backfill done: %d keys in %.1f s, %d failed",
              done.get(), backfillNanos / 1e9, failed.sum()));
      return backfilled;
    } finally {
      backfilling = false;
    }
  }
}
