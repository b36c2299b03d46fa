package io.dyno.loadgen.bench;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One load-generator run against one {@link Driver}: optional backfill, then reader, writer and
 * mixed threads for the configured duration or, when it has none, until {@link #stop()}. Every
 * runtime setting ({@link #knobs()}) may change while it runs, thread counts included; the load
 * can be paused and resumed and a backfill started at any time. A progress {@link Sample} goes out
 * every interval (a line to the progress sink and to every sample listener).
 *
 * <p>The parts: {@link CallerSlots} and {@link CallerLoops} make the calls, {@link LoadRecorder}
 * measures them (memory stays flat however long it runs), {@link NodeCounts} and {@link RunCpu}
 * read the nodes' counters and the CPU, {@link EventLog} keeps the time line, {@link Backfill}
 * writes every key. {@link #snapshot()} gives the result so far at any moment (the report written
 * while it runs); {@link #run()} blocks and returns the final one.
 */
public final class Bench {
  /** Something that happened during the run, at {@code t} seconds after the measured part began. */
  public record Event(double t, String kind, String text) {}

  private final BenchConfig initial;
  private final Driver driver;
  private final Consumer<String> progress;
  private final Knobs knobs;
  private final List<Consumer<Sample>> sampleListeners = new CopyOnWriteArrayList<>();
  private final ErrorKinds errorKinds = new ErrorKinds();
  private final LoadRecorder recorder = new LoadRecorder(errorKinds);
  private final EventLog events = new EventLog();
  private final RunFlags flags = new RunFlags();
  private final CallerLoops loops;
  private final CallerSlots callers;
  private final NodeCounts nodeCounts;
  private final RunCpu cpu = new RunCpu(recorder::operations);
  private final Backfills backfills;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile long runStartNanos;
  private volatile long startedAtMillis = System.currentTimeMillis();
  private volatile double endSeconds = -1;
  /** Callers of the measured part, and those still blocked in a call {@link Callers#GRACE} after its end. */
  private volatile int callerCount;

  private volatile int blockedCallers;
  private volatile String stall = "";
  private Duration grace = Callers.GRACE;
  private Duration progressInterval = Duration.ofSeconds(1);
  private String targetName = "?";
  private String label;
  private int round;
  private Duration warmup = Duration.ZERO;

  public Bench(BenchConfig config, Driver driver, Consumer<String> progress) {
    this.initial = config;
    this.driver = driver;
    this.progress = progress;
    this.knobs = new Knobs(config);
    RateLimiter readLimiter = new RateLimiter(config.readRate);
    RateLimiter writeLimiter = new RateLimiter(config.writeRate);
    this.loops = new CallerLoops(knobs, driver, readLimiter, writeLimiter, recorder, flags);
    this.callers = new CallerSlots(knobs, driver.name(), loops);
    this.nodeCounts = new NodeCounts(driver);
    this.backfills =
        new Backfills(knobs, driver, flags::stopRequested, errorKinds, progress, this::event);
    if (config.virtualThreads > 0 && !Callers.virtualThreadsAvailable()) {
      throw new IllegalArgumentException(Callers.virtualThreadsUnavailable(
          "setting virtualThreads (--virtual-threads)", config.virtualThreads));
    }
    if (config.consistency != driver.consistency()) {
      driver.consistency(config.consistency);
    }
    knobs.veto(c -> {
      if (c.consistency != knobs.consistency() && c.consistency != driver.consistency()) {
        // throws when the driver refuses; applied here so a refusal changes nothing
        driver.consistency(c.consistency);
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
    SettingsDiff changes = new SettingsDiff(new Knobs(config).asMap());
    knobs.onChange(k -> {
      if (k.readRate() != readLimiter.rate()) readLimiter.setRate(k.readRate());
      if (k.writeRate() != writeLimiter.rate()) writeLimiter.setRate(k.writeRate());
      String text = "settings now " + k.asMap();
      event("settings", changes.next(k.asMap()));
      progress.accept("[" + driver.name() + "] " + text);
    });
    driver.onBorrow(recorder::borrowed);
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
    recorder.keepSamples(samples);
    this.events.keep(events);
    return this;
  }

  /** The target's counters, or (when null) why it has none: that reason is what the report shows per node. */
  public Bench serverCounters(ServerCounters<?> counters, String reasonWhenNone) {
    nodeCounts.serverCounters(counters, reasonWhenNone);
    return this;
  }

  /** How the client process's CPU is read (by default all of this JVM's: no servers run in it). */
  public Bench clientCpu(ClientCpu clientCpu) {
    cpu.clientCpu(clientCpu);
    return this;
  }

  /** The target's server processes, or (when null) why their CPU is not measured: that reason is what the report shows. */
  public Bench serverCpu(ServerCpu serverCpu, String reasonWhenNone) {
    cpu.serverCpu(serverCpu, reasonWhenNone);
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

  public Bench targetName(String name) {
    this.targetName = name;
    nodeCounts.targetName(name);
    return this;
  }

  private String label() {
    return label != null ? label : driver.name();
  }

  /** Writes every key once, nothing else; returns the keys written. */
  public long backfillOnly() throws InterruptedException {
    return backfills.run();
  }

  /** Ends the run (from any thread); {@link #run()} returns soon after. */
  public void stop() {
    if (!flags.stopRequested()) event("stop", "run stopped");
    flags.requestStop();
    stopped.countDown();
  }

  public boolean stopping() {
    return flags.stopRequested();
  }

  /** Pauses the load (threads idle, samples go on with zero operations) until {@link #resume()}. */
  public void pause() {
    if (!flags.paused()) event("pause", "load paused");
    flags.paused(true);
  }

  public void resume() {
    if (flags.paused()) event("start", "load started");
    flags.paused(false);
  }

  public boolean paused() {
    return flags.paused();
  }

  public boolean backfilling() {
    return backfills.running();
  }

  /** Starts a backfill of every key in the background (the load goes on beside it); false when one is running. */
  public boolean backfillNow() {
    return backfills.startInBackground();
  }

  /** Records an event (a fault injected, a node revived, a setting changed) on the run's time line. */
  public void event(String kind, String text) {
    events.add(new Event(elapsedSeconds(), kind, text));
  }

  public List<Event> events() {
    return events.list();
  }

  /** The kept samples whose time is after {@code afterT} seconds (all with a negative value). */
  public List<Sample> samplesAfter(double afterT) {
    return recorder.samplesAfter(afterT);
  }

  /** Seconds since the measured part began (0 before). */
  public double elapsedSeconds() {
    long start = runStartNanos;
    return start == 0 ? 0 : (System.nanoTime() - start) / 1e9;
  }

  public String key(long index) {
    return knobs.config().keyPrefix + index;
  }

  /** Runs the backfill, the warm-up and the measured part; returns the result. */
  public BenchResult run() throws InterruptedException {
    startedAtMillis = System.currentTimeMillis();
    BenchConfig config = initial;
    refuseWhatTheDriverLacks(config);
    if (config.backfill) backfills.run();
    if (!warmup.isZero()) warmUp();
    long runStart = beginMeasuring(config);
    long deadline = config.endless() ? Long.MAX_VALUE : runStart + config.duration.toNanos();
    adjustCallers(deadline);
    long lastSample = sampleUntil(runStart, deadline);
    return finish(runStart, lastSample);
  }

  private void refuseWhatTheDriverLacks(BenchConfig config) {
    if (config.async > 0 && !driver.supportsAsync()) {
      throw new IllegalArgumentException("setting async: driver " + driver.name()
          + " has no asynchronous API" + " (dyno, dyno-pooled and lettuce have one)");
    }
    if (config.pipelineMax > 1 && !driver.supportsPipelines()) {
      throw new IllegalArgumentException(
          "setting pipeline: driver " + driver.name() + " has no pipelines in this bench");
    }
  }

  /** Starts the callers the settings ask for beyond those alive (none once the run stops). */
  private void adjustCallers(long deadline) {
    if (!flags.stopRequested()) callers.adjust(deadline);
  }

  /** Load before the measured part, with the same callers and settings, not recorded. */
  private void warmUp() throws InterruptedException {
    progress.accept(
        String.format("[%s] warm-up %.0fs (not recorded)", label(), warmup.toMillis() / 1000.0));
    long warmEnd = System.nanoTime() + warmup.toNanos();
    List<Thread> warm = callers.startWarmup(warmEnd);
    int stuck = Callers.awaitEnd(warm, warmEnd + grace.toNanos());
    if (stuck > 0) {
      String text = Callers.blockedText(label(), stuck, warm.size(), grace, "the warm-up's end");
      progress.accept("[" + label() + "] " + text);
      event("stall", text);
    }
  }

  /** Takes the counters' and CPU's first readings and starts recording; returns the start (nanoTime). */
  private long beginMeasuring(BenchConfig config) {
    driver.borrowSinceLastCall(); // drops the warm-up's and backfill's borrows
    nodeCounts.begin(config.consistency);
    cpu.begin(); // last before the load starts: the counters' snapshot above talks to the servers
    // too
    long runStart = System.nanoTime();
    recorder.startMeasuring();
    runStartNanos = runStart;
    event(
        "start",
        config.endless()
            ? "run started (endless: until stopped)"
            : "run started for " + config.duration.toSeconds() + " s");
    return runStart;
  }

  /** A sample every interval until the deadline or a stop; returns when the last one was taken. */
  private long sampleUntil(long runStart, long deadline) throws InterruptedException {
    long intervalNanos = progressInterval.toNanos();
    long next = runStart + intervalNanos;
    long lastSample = runStart;
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
        sample(runStart, now);
        lastSample = now;
        next += intervalNanos;
        if (next < now)
          next = now + intervalNanos; // a stalled machine: no burst of catch-up samples
        adjustCallers(deadline);
      }
    }
    return lastSample;
  }

  /**
   * Stops the callers and takes the final figures. A call in flight at the end is counted when it
   * completes within the grace period, as the drivers' per-node request counts count it (the report
   * checks both agree); a caller still blocked after it is a stall, and its call is not counted.
   */
  private BenchResult finish(long runStart, long lastSample) throws InterruptedException {
    flags.requestStop();
    long end = System.nanoTime();
    List<Thread> all = callers.all();
    callerCount = all.size();
    blockedCallers = Callers.awaitEnd(all, end + grace.toNanos());
    recorder.stopMeasuring();
    if (blockedCallers > 0) {
      stall = Callers.blockedText(label(), blockedCallers, callerCount, grace, "the end")
          + " (a stalled driver: their calls are not counted)";
      progress.accept("[" + label() + "] " + stall);
      event("stall", stall);
    }
    // Read first once the load stopped, before the counters' snapshot (which polls the servers
    // until they settle).
    RunCpu.Readings cpuAtEnd = cpu.read();
    if (!recorder.anySample() || end - lastSample > progressInterval.toNanos() / 10) {
      sample(runStart, end);
    }
    cpu.end(cpuAtEnd);
    endSeconds = (end - runStart) / 1e9;
    return result(nodeCounts.stats(true), endSeconds);
  }

  /** Closes the progress interval at {@code now}: its sample goes to the progress line and the listeners. */
  private void sample(long runStart, long now) {
    BenchConfig c = knobs.config();
    Sample s = recorder.closeInterval(
        runStart,
        now,
        new LoadRecorder.IntervalContext(
            driver.borrowSinceLastCall(),
            driver.measuresBorrow(),
            c.readRate,
            c.writeRate,
            nodeCounts.sinceLastInterval()));
    progress.accept(s.progressLine(label()));
    for (Consumer<Sample> l : sampleListeners) {
      l.accept(s);
    }
  }

  /** Delivers a sample to the listeners as if an interval ended (tests of listeners such as the auto-tuner). */
  void emitForTest(Sample s) {
    for (Consumer<Sample> l : sampleListeners) {
      l.accept(s);
    }
  }

  /** Requests still unanswered in async mode (0 otherwise). */
  int asyncInFlight() {
    return loops.asyncInFlight();
  }

  /** Cumulative reads, writes, errors and seconds so far (cheap: no server counters read). */
  public Map<String, Object> totals() {
    LoadRecorder.Counts t = recorder.counts();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("reads", t.reads());
    m.put("writes", t.writes());
    m.put("errors", t.errors());
    m.put("seconds", endSeconds >= 0 ? endSeconds : elapsedSeconds());
    return m;
  }

  /** The result so far, while the run goes on (server counters are read at this moment, the window stays open). */
  public BenchResult snapshot() {
    double secs = endSeconds >= 0 ? endSeconds : elapsedSeconds();
    return result(nodeCounts.stats(false), secs);
  }

  private BenchResult result(List<NodeStat> nodes, double seconds) {
    ServerCpu.Use serverUse = cpu.server();
    ClientCpu.Use clientUse = cpu.client();
    Map<String, Long> kinds = errorKinds.asMap();
    LoadRecorder.Totals t = recorder.totals(driver.measuresBorrow());
    Backfill.Outcome b = backfills.last();
    return new BenchResult(
        label(),
        round,
        driver.name(),
        targetName,
        knobs.config().asMap(),
        startedAtMillis,
        b.nanos() / 1e9,
        b.written(),
        seconds,
        t.reads(),
        t.writes(),
        t.errors(),
        t.p50(),
        t.p95(),
        t.p99(),
        t.p999(),
        t.max(),
        t.readP99(),
        t.writeP99(),
        t.borrowP50(),
        t.borrowP99(),
        t.samples(),
        nodes,
        serverUse,
        clientUse,
        kinds,
        driver.summary(),
        t.readP999(),
        t.readMax(),
        Callers.describe(knobs.config()),
        endSeconds >= 0 ? callerCount : callers.alive(),
        blockedCallers,
        stall);
  }
}
