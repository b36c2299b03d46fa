package io.dyno.loadgen.bench;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.config.HedgePolicy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
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
    valueSizeMax = Math.max(b.valueSize, b.valueSizeMax);
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
    m.put("readRate", fmtRate(readRate));
    m.put("writeRate", fmtRate(writeRate));
    m.put("distribution", distribution.name());
    m.put("zipfTheta", Double.toString(zipfTheta));
    m.put("hotKeysPercent", fmtRate(hotKeysPercent));
    m.put("hotAccessPercent", fmtRate(hotAccessPercent));
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

  static String fmtRate(double r) {
    return r <= 0 ? "0" : (r == Math.rint(r) ? Long.toString((long) r) : Double.toString(r));
  }

  @Override
  public String toString() {
    return asMap().toString();
  }

  /** Parses durations written {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h} or plain seconds. */
  public static Duration parseDuration(String name, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    try {
      if (t.endsWith("ms"))
        return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2).trim()));
      if (t.endsWith("s"))
        return Duration.ofMillis(Math.round(
            Double.parseDouble(t.substring(0, t.length() - 1).trim()) * 1000));
      if (t.endsWith("m"))
        return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1).trim()) * 60);
      if (t.endsWith("h"))
        return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1).trim()) * 3600);
      return Duration.ofMillis(Math.round(Double.parseDouble(t) * 1000));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "setting " + name + ": \"" + text + "\" is not a duration (e.g. 500ms, 10s, 2m)");
    }
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

    /** Sets one setting by name from text (command line, properties file, control endpoint). */
    public Builder set(String name, String value) {
      String v = value == null ? "" : value.trim();
      switch (name) {
        case "keys" -> keys = parseLong(name, v);
        case "valueSize" -> {
          int dash = v.indexOf('-');
          if (dash > 0) {
            valueSize = (int) parseLong(name, v.substring(0, dash));
            valueSizeMax = (int) parseLong(name, v.substring(dash + 1));
          } else {
            valueSize = (int) parseLong(name, v);
            valueSizeMax = valueSize;
          }
        }
        case "valueSizeMax" -> valueSizeMax = (int) parseLong(name, v);
        case "readers" -> readers = (int) parseLong(name, v);
        case "writers" -> writers = (int) parseLong(name, v);
        case "threads" -> threads = (int) parseLong(name, v);
        case "readPercent" -> readPercent = (int) parseLong(name, v);
        case "readRate" -> readRate = parseDouble(name, v);
        case "writeRate" -> writeRate = parseDouble(name, v);
        case "distribution" -> {
          try {
            distribution = KeyDistribution.valueOf(v.toUpperCase(Locale.ROOT).replace('-', '_'));
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("setting distribution: \"" + value
                + "\" is not one of uniform, zipfian, hot_set, sliding_window");
          }
        }
        case "zipfTheta" -> zipfTheta = parseDouble(name, v);
        case "hotKeysPercent" -> hotKeysPercent = parseDouble(name, v);
        case "hotAccessPercent" -> hotAccessPercent = parseDouble(name, v);
        case "windowSize" -> windowSize = parseLong(name, v);
        case "windowSlidePerSecond" -> windowSlidePerSecond = parseLong(name, v);
        case "backfill" -> backfill = parseBool(name, v);
        case "backfillThreads" -> backfillThreads = (int) parseLong(name, v);
        case "duration" ->
          duration =
              ENDLESS.contains(v.toLowerCase(Locale.ROOT)) ? Duration.ZERO : parseDuration(name, v);
        case "pipeline" -> {
          int dash = v.indexOf('-');
          pipelineMin = (int) parseLong(name, dash > 0 ? v.substring(0, dash) : v);
          pipelineMax = (int) parseLong(name, dash > 0 ? v.substring(dash + 1) : v);
        }
        case "pipelineMin" -> pipelineMin = (int) parseLong(name, v);
        case "pipelineMax" -> pipelineMax = (int) parseLong(name, v);
        case "consistency" -> {
          try {
            consistency = ConsistencyLevel.parse(v);
          } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("setting consistency: " + e.getMessage());
          }
        }
        case "keyPrefix" -> keyPrefix = v;
        case "async" -> async = (int) parseLong(name, v);
        case "virtualThreads" -> virtualThreads = (int) parseLong(name, v);
        case "hedge" -> hedge = v.isEmpty() ? "off" : v;
        case "deadline" ->
          deadline =
              ENDLESS.contains(v.toLowerCase(Locale.ROOT)) ? Duration.ZERO : parseDuration(name, v);
        case "muxConnections" -> muxConnections = (int) parseLong(name, v);
        case "muxWrites" ->
          muxWrites = v.equalsIgnoreCase("default") ? -1 : (int) parseLong(name, v);
        case "connections" -> connections = (int) parseLong(name, v);
        case "tracing" -> tracing = TracingMode.parse(v);
        default ->
          throw new IllegalArgumentException("unknown bench setting \"" + name + "\"; known: "
              + String.join(", ", new BenchConfig(new Builder()).asMap().keySet()) + ", pipeline");
      }
      return this;
    }

    public BenchConfig build() {
      require(keys >= 1, "keys", "must be >= 1, was " + keys);
      require(valueSize >= 1, "valueSize", "must be >= 1, was " + valueSize);
      require(
          valueSizeMax >= valueSize,
          "valueSizeMax",
          "must be >= valueSize " + valueSize + ", was " + valueSizeMax);
      require(
          valueSizeMax <= 64 * 1024 * 1024,
          "valueSizeMax",
          "must be <= 64 MiB, was " + valueSizeMax);
      require(readers >= 0, "readers", "must be >= 0, was " + readers);
      require(writers >= 0, "writers", "must be >= 0, was " + writers);
      require(threads >= 0, "threads", "must be >= 0, was " + threads);
      require(
          readers + writers + threads >= 1 || virtualThreads > 0,
          "readers/writers/threads",
          "at least one load thread is needed");
      require(
          readPercent >= 0 && readPercent <= 100,
          "readPercent",
          "must be 0..100, was " + readPercent);
      require(readRate >= 0, "readRate", "must be >= 0 (0 = unlimited), was " + readRate);
      require(writeRate >= 0, "writeRate", "must be >= 0 (0 = unlimited), was " + writeRate);
      require(zipfTheta > 0 && zipfTheta < 1, "zipfTheta", "must be in (0, 1), was " + zipfTheta);
      require(
          hotKeysPercent > 0 && hotKeysPercent <= 100,
          "hotKeysPercent",
          "must be in (0, 100], was " + hotKeysPercent);
      require(
          hotAccessPercent >= 0 && hotAccessPercent <= 100,
          "hotAccessPercent",
          "must be 0..100, was " + hotAccessPercent);
      require(windowSize >= 1, "windowSize", "must be >= 1, was " + windowSize);
      require(
          windowSlidePerSecond >= 0,
          "windowSlidePerSecond",
          "must be >= 0, was " + windowSlidePerSecond);
      require(backfillThreads >= 1, "backfillThreads", "must be >= 1, was " + backfillThreads);
      require(
          duration != null && !duration.isNegative(),
          "duration",
          "must be positive, or 0/endless to run until stopped, was " + duration);
      checkPipeline(pipelineMin, pipelineMax);
      require(consistency != null, "consistency", "must be set");
      require(keyPrefix != null, "keyPrefix", "must not be null");
      require(
          async >= 0 && async <= 100_000,
          "async",
          "must be 0 (off) .. 100000 requests in flight, was " + async);
      require(
          async == 0 || pipelineMax <= 1,
          "async",
          "runs single commands; it does not combine with pipeline " + pipelineMin + "-"
              + pipelineMax);
      require(
          virtualThreads >= 0 && virtualThreads <= 1_000_000,
          "virtualThreads",
          "must be 0 (off) .. 1000000, was " + virtualThreads);
      require(
          virtualThreads == 0 || async == 0,
          "virtualThreads",
          "runs blocking callers; it does not combine with async");
      try {
        HedgePolicy.parse(hedge);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("setting hedge: " + e.getMessage());
      }
      require(deadline != null && !deadline.isNegative(), "deadline", "must be positive, or none");
      require(
          muxConnections >= 0 && muxConnections <= 64,
          "muxConnections",
          "must be 0 (default) .. 64, was " + muxConnections);
      require(
          muxWrites >= -1 && muxWrites <= 1024,
          "muxWrites",
          "must be default, or 0 (no bound) .. 1024, was " + muxWrites);
      require(
          connections >= 0 && connections <= 64,
          "connections",
          "must be 0 (default) .. 64, was " + connections);
      return new BenchConfig(this);
    }
  }

  /** Duration values meaning "until stopped". */
  static final Set<String> ENDLESS = Set.of("0", "none", "endless", "forever");

  static void checkPipeline(int min, int max) {
    require(min >= 1, "pipelineMin", "must be >= 1, was " + min);
    require(max >= min, "pipelineMax", "must be >= pipelineMin " + min + ", was " + max);
    require(max <= 10_000, "pipelineMax", "must be <= 10000, was " + max);
  }

  /** Throws IllegalArgumentException "setting NAME: PROBLEM" unless {@code ok}. */
  public static void require(boolean ok, String name, String problem) {
    if (!ok) {
      throw new IllegalArgumentException("setting " + name + ": " + problem);
    }
  }

  static long parseLong(String name, String v) {
    try {
      String t = v.replace("_", "").toLowerCase(Locale.ROOT);
      long mult = 1;
      if (t.endsWith("k")) {
        mult = 1_000;
        t = t.substring(0, t.length() - 1);
      } else if (t.endsWith("m")) {
        mult = 1_000_000;
        t = t.substring(0, t.length() - 1);
      }
      return Long.parseLong(t) * mult;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "setting " + name + ": \"" + v + "\" is not a whole number");
    }
  }

  static double parseDouble(String name, String v) {
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("setting " + name + ": \"" + v + "\" is not a number");
    }
  }

  static boolean parseBool(String name, String v) {
    if (v.equalsIgnoreCase("true") || v.equals("1") || v.equalsIgnoreCase("yes")) return true;
    if (v.equalsIgnoreCase("false") || v.equals("0") || v.equalsIgnoreCase("no")) return false;
    throw new IllegalArgumentException("setting " + name + ": \"" + v + "\" is not true/false");
  }
}
