package io.dyno.loadgen.bench;

import io.dyno.core.ConsistencyLevel;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The load generator's parameters, immutable and validated when built. Every setting has a name
 * (used on the command line as {@code --name value}, in properties files and by the control
 * endpoint); {@link #RUNTIME_SETTINGS} names the ones that may change while a run is going.
 *
 * <p>Threads: {@code readers} only read, {@code writers} only write (NDBench's model), and
 * {@code threads} are mixed threads choosing GET with probability {@code readPercent}%. Rates are
 * operations per second over all threads of that kind; 0 means unlimited.
 */
public final class BenchConfig {
  /** The settings that may change during a run (see {@link Knobs}). */
  public static final Set<String> RUNTIME_SETTINGS = Set.of(
      "readRate",
      "writeRate",
      "readPercent",
      "pipelineMin",
      "pipelineMax",
      "pipeline",
      "readers",
      "writers",
      "threads",
      "distribution",
      "zipfTheta",
      "hotKeysPercent",
      "hotAccessPercent",
      "windowSize",
      "windowSlidePerSecond",
      "valueSize",
      "valueSizeMax",
      "consistency");

  public final long keys;
  public final int valueSize;
  /** Equal to {@link #valueSize} for fixed-size values; larger for sizes uniform in [valueSize, valueSizeMax]. */
  public final int valueSizeMax;

  public final int readers;
  public final int writers;
  public final int threads;
  public final int readPercent;
  public final double readRate;
  public final double writeRate;
  public final KeyDistribution distribution;
  public final double zipfTheta;
  /** HOT_SET: the share of the keys that is hot (percent), and the share of accesses that go to it (percent). */
  public final double hotKeysPercent;

  public final double hotAccessPercent;
  public final long windowSize;
  public final long windowSlidePerSecond;
  public final boolean backfill;
  public final int backfillThreads;
  /** How long the measured part runs; {@link Duration#ZERO} runs until stopped ({@link #endless()}). */
  public final Duration duration;

  public final int pipelineMin;
  public final int pipelineMax;
  public final ConsistencyLevel consistency;
  public final String keyPrefix;
  /**
   * Requests kept in flight through the driver's asynchronous API (0: off, one blocking call per
   * thread). The {@link #threads} submit; completions are recorded on the client's I/O threads.
   */
  public final int async;
  /** Blocking callers on virtual threads instead of readers, writers and threads (0: off; needs Java 21+, see Callers). */
  public final int virtualThreads;
  /** Dyno only: hedged reads ({@code off}, {@code after:<ms>}, {@code p99:<minMs>}; see HedgePolicy). */
  public final String hedge;
  /** Dyno only: the request deadline (ZERO: none). */
  public final Duration deadline;
  /** Dyno's multiplexed transport only: shared connections per node and level (0: the client's default). */
  public final int muxConnections;
  /** Dyno's multiplexed transport only: writes awaiting replies per shared connection (-1: the client's default; 0: no bound). */
  public final int muxWrites;
  /** Lettuce only: shared connections per node (0: the tool's default). */
  public final int connections;
  /** Dyno only: OpenTelemetry tracing of each call (OFF: no listener). */
  public final TracingMode tracing;

  private BenchConfig(Builder b) {
    keys = b.keys;
    valueSize = b.valueSize;
    valueSizeMax = b.valueSizeMax;
    readers = b.readers;
    writers = b.writers;
    threads = b.threads;
    readPercent = b.readPercent;
    readRate = b.readRate;
    writeRate = b.writeRate;
    distribution = b.distribution;
    zipfTheta = b.zipfTheta;
    hotKeysPercent = b.hotKeysPercent;
    hotAccessPercent = b.hotAccessPercent;
    windowSize = Math.min(b.windowSize, b.keys);
    windowSlidePerSecond = b.windowSlidePerSecond;
    backfill = b.backfill;
    backfillThreads = b.backfillThreads;
    duration = b.duration;
    pipelineMin = b.pipelineMin;
    pipelineMax = b.pipelineMax;
    consistency = b.consistency;
    keyPrefix = b.keyPrefix;
    async = b.async;
    virtualThreads = b.virtualThreads;
    hedge = b.hedge;
    deadline = b.deadline;
    muxConnections = b.muxConnections;
    muxWrites = b.muxWrites;
    connections = b.connections;
    tracing = b.tracing;
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.keys = keys;
    b.valueSize = valueSize;
    b.valueSizeMax = valueSizeMax;
    b.readers = readers;
    b.writers = writers;
    b.threads = threads;
    b.readPercent = readPercent;
    b.readRate = readRate;
    b.writeRate = writeRate;
    b.distribution = distribution;
    b.zipfTheta = zipfTheta;
    b.hotKeysPercent = hotKeysPercent;
    b.hotAccessPercent = hotAccessPercent;
    b.windowSize = windowSize;
    b.windowSlidePerSecond = windowSlidePerSecond;
    b.backfill = backfill;
    b.backfillThreads = backfillThreads;
    b.duration = duration;
    b.pipelineMin = pipelineMin;
    b.pipelineMax = pipelineMax;
    b.consistency = consistency;
    b.keyPrefix = keyPrefix;
    b.async = async;
    b.virtualThreads = virtualThreads;
    b.hedge = hedge;
    b.deadline = deadline;
    b.muxConnections = muxConnections;
    b.muxWrites = muxWrites;
    b.connections = connections;
    b.tracing = tracing;
    return b;
  }

  /** True when the run has no duration: it goes on until stopped (Ctrl-C, POST /stop). */
  public boolean endless() {
    return duration.isZero();
  }

  public boolean pipelined() {
    return pipelineMax > 1;
  }

  /** Every setting as name → text, in a stable order (for reports). */
  public Map<String, String> asMap() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("keys", Long.toString(keys));
    m.put("valueSize", Integer.toString(valueSize));
    m.put("valueSizeMax", Integer.toString(valueSizeMax));
    m.put("readers", Integer.toString(readers));
    m.put("writers", Integer.toString(writers));
    m.put("threads", Integer.toString(threads));
    m.put("readPercent", Integer.toString(readPercent));
    m.put("readRate", SettingValues.fmtRate(readRate));
    m.put("writeRate", SettingValues.fmtRate(writeRate));
    m.put("distribution", distribution.name());
    m.put("zipfTheta", Double.toString(zipfTheta));
    m.put("hotKeysPercent", SettingValues.fmtRate(hotKeysPercent));
    m.put("hotAccessPercent", SettingValues.fmtRate(hotAccessPercent));
    m.put("windowSize", Long.toString(windowSize));
    m.put("windowSlidePerSecond", Long.toString(windowSlidePerSecond));
    m.put("backfill", Boolean.toString(backfill));
    m.put("backfillThreads", Integer.toString(backfillThreads));
    m.put("duration", duration.isZero() ? "endless" : duration.toMillis() + "ms");
    m.put("pipelineMin", Integer.toString(pipelineMin));
    m.put("pipelineMax", Integer.toString(pipelineMax));
    m.put("consistency", consistency.name());
    m.put("keyPrefix", keyPrefix);
    m.put("async", Integer.toString(async));
    m.put("virtualThreads", Integer.toString(virtualThreads));
    m.put("hedge", hedge);
    m.put("deadline", deadline.isZero() ? "none" : deadline.toMillis() + "ms");
    m.put("muxConnections", Integer.toString(muxConnections));
    m.put("muxWrites", muxWrites < 0 ? "default" : Integer.toString(muxWrites));
    m.put("connections", Integer.toString(connections));
    m.put("tracing", tracing.label());
    return m;
  }

  @Override
  public String toString() {
    return asMap().toString();
  }

  /** A builder that validates everything in {@link #build()} and names the setting at fault. */
  public static final class Builder {
    private long keys = 100_000;
    private int valueSize = 1024;
    private int valueSizeMax = 1024;
    private int readers = 4;
    private int writers = 1;
    private int threads = 0;
    private int readPercent = 80;
    private double readRate = 0;
    private double writeRate = 0;
    private KeyDistribution distribution = KeyDistribution.UNIFORM;
    private double zipfTheta = 0.99;
    private double hotKeysPercent = 10;
    private double hotAccessPercent = 90;
    private long windowSize = 10_000;
    private long windowSlidePerSecond = 1_000;
    private boolean backfill = true;
    private int backfillThreads = 8;
    private Duration duration = Duration.ofSeconds(60);
    private int pipelineMin = 1;
    private int pipelineMax = 1;
    private ConsistencyLevel consistency = ConsistencyLevel.DC_ONE;
    private String keyPrefix = "bench:";
    private int async = 0;
    private int virtualThreads = 0;
    private String hedge = "off";
    private Duration deadline = Duration.ZERO;
    private int muxConnections = 0;
    private int muxWrites = -1;
    private int connections = 0;
    private TracingMode tracing = TracingMode.OFF;

    public Builder keys(long v) {
      keys = v;
      return this;
    }

    public Builder valueSize(int v) {
      valueSize = v;
      valueSizeMax = Math.max(valueSizeMax, v);
      return this;
    }

    public Builder valueSize(int min, int max) {
      valueSize = min;
      valueSizeMax = max;
      return this;
    }

    public Builder valueSizeMax(int v) {
      valueSizeMax = v;
      return this;
    }

    public Builder readers(int v) {
      readers = v;
      return this;
    }

    public Builder writers(int v) {
      writers = v;
      return this;
    }

    public Builder threads(int v) {
      threads = v;
      return this;
    }

    public Builder readPercent(int v) {
      readPercent = v;
      return this;
    }

    public Builder readRate(double v) {
      readRate = v;
      return this;
    }

    public Builder writeRate(double v) {
      writeRate = v;
      return this;
    }

    public Builder distribution(KeyDistribution v) {
      distribution = v;
      return this;
    }

    public Builder zipfTheta(double v) {
      zipfTheta = v;
      return this;
    }

    public Builder hotSet(double keysPercent, double accessPercent) {
      hotKeysPercent = keysPercent;
      hotAccessPercent = accessPercent;
      return this;
    }

    public Builder hotKeysPercent(double v) {
      hotKeysPercent = v;
      return this;
    }

    public Builder hotAccessPercent(double v) {
      hotAccessPercent = v;
      return this;
    }

    public Builder windowSize(long v) {
      windowSize = v;
      return this;
    }

    public Builder windowSlidePerSecond(long v) {
      windowSlidePerSecond = v;
      return this;
    }

    public Builder window(long size, long slidePerSecond) {
      windowSize = size;
      windowSlidePerSecond = slidePerSecond;
      return this;
    }

    public Builder backfill(boolean v) {
      backfill = v;
      return this;
    }

    public Builder backfillThreads(int v) {
      backfillThreads = v;
      return this;
    }

    public Builder duration(Duration v) {
      duration = v;
      return this;
    }

    public Builder pipeline(int min, int max) {
      pipelineMin = min;
      pipelineMax = max;
      return this;
    }

    public Builder pipelineMin(int v) {
      pipelineMin = v;
      return this;
    }

    public Builder pipelineMax(int v) {
      pipelineMax = v;
      return this;
    }

    public Builder consistency(ConsistencyLevel v) {
      consistency = v;
      return this;
    }

    public Builder keyPrefix(String v) {
      keyPrefix = v;
      return this;
    }

    public Builder async(int v) {
      async = v;
      return this;
    }

    public Builder virtualThreads(int v) {
      virtualThreads = v;
      return this;
    }

    public Builder hedge(String v) {
      hedge = v;
      return this;
    }

    public Builder deadline(Duration v) {
      deadline = v;
      return this;
    }

    public Builder muxConnections(int v) {
      muxConnections = v;
      return this;
    }

    public Builder muxWrites(int v) {
      muxWrites = v;
      return this;
    }

    public Builder connections(int v) {
      connections = v;
      return this;
    }

    public Builder tracing(TracingMode v) {
      tracing = v;
      return this;
    }

    /** Sets one setting by name from text (command line, properties file, control endpoint). */
    public Builder set(String name, String value) {
      NamedSetting.apply(this, name, value);
      return this;
    }

    /** Builds the configuration; throws naming the first setting at fault (see {@link BenchConfigRules}). */
    public BenchConfig build() {
      return BenchConfigRules.check(new BenchConfig(this));
    }
  }
}
