package io.dyno.core.config;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.routing.LoadBalancing;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Every setting of the engine (pools, timeouts, retry, failover, health, consistency), as one
 * immutable value built by a strict {@link Builder}: a bad value is rejected at once with the
 * setting's name and the value. Defaults and units are listed in {@link #describe()} and the README.
 *
 * <p>The engine reads its configuration through a {@code Supplier<DynoConfig>} on every call, so a
 * source like {@link ArchaiusDynoConfig} can swap in a new value. Settings that take effect live
 * ({@link #LIVE_SETTINGS}): pool bounds, borrow timeout, failover count, retry policy, connect and
 * socket timeouts (for connections opened afterwards), default consistency, request deadline.
 * The others are read once when the engine starts.
 */
public final class DynoConfig {
  /** Names of the settings a running engine picks up when its config supplier changes. */
  public static final java.util.Set<String> LIVE_SETTINGS = java.util.Set.of(
      "minConnsPerHost", "maxConnsPerHost", "maxTimeoutWhenExhausted", "maxFailoverCount",
      "retryPolicy", "retryNonIdempotent", "connectTimeout", "socketTimeout", "defaultConsistency",
      "requestDeadline");

  private static final DynoConfig DEFAULTS = new Builder().build();

  private final String applicationName;
  private final int minConnsPerHost;
  private final int maxConnsPerHost;
  private final Duration maxTimeoutWhenExhausted;
  private final Duration connectTimeout;
  private final Duration socketTimeout;
  private final int maxFailoverCount;
  private final RetryPolicy retryPolicy;
  private final boolean retryNonIdempotent;
  private final Duration requestDeadline;
  private final ConsistencyLevel defaultConsistency;
  private final boolean datastoreMode;
  private final boolean localZoneAffinity;
  private final LoadBalancing lbStrategy;
  private final CompressionStrategy compressionStrategy;
  private final int compressionThreshold;
  private final Duration idleTimeout;
  private final Duration keepAliveInterval;
  private final Duration maintenanceInterval;
  private final double healthErrorThreshold;
  private final Duration healthHalfLife;
  private final Duration healthCoolDown;
  private final Duration healthMaxCoolDown;
  private final boolean failOnStartupIfNoHosts;
  private final Duration startupTimeout;

  private DynoConfig(Builder b) {
    applicationName = b.applicationName;
    minConnsPerHost = b.minConnsPerHost;
    maxConnsPerHost = b.maxConnsPerHost;
    maxTimeoutWhenExhausted = b.maxTimeoutWhenExhausted;
    connectTimeout = b.connectTimeout;
    socketTimeout = b.socketTimeout;
    maxFailoverCount = b.maxFailoverCount;
    retryPolicy = b.retryPolicy;
    retryNonIdempotent = b.retryNonIdempotent;
    requestDeadline = b.requestDeadline;
    defaultConsistency = b.defaultConsistency;
    datastoreMode = b.datastoreMode;
    localZoneAffinity = b.localZoneAffinity;
    lbStrategy = b.lbStrategy;
    compressionStrategy = b.compressionStrategy;
    compressionThreshold = b.compressionThreshold;
    idleTimeout = b.idleTimeout;
    keepAliveInterval = b.keepAliveInterval;
    maintenanceInterval = b.maintenanceInterval;
    healthErrorThreshold = b.healthErrorThreshold;
    healthHalfLife = b.healthHalfLife;
    healthCoolDown = b.healthCoolDown;
    healthMaxCoolDown = b.healthMaxCoolDown;
    failOnStartupIfNoHosts = b.failOnStartupIfNoHosts;
    startupTimeout = b.startupTimeout;
  }

  /** The configuration with every default. */
  public static DynoConfig defaults() {
    return DEFAULTS;
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Names meters ({@code app} tag) and Archaius properties ({@code dyno.<app>.*}). */
  public String applicationName() { return applicationName; }
  /** Connections each node's pool keeps open even when idle. */
  public int minConnsPerHost() { return minConnsPerHost; }
  /** Most connections a node's pool opens (borrowers wait beyond that). */
  public int maxConnsPerHost() { return maxConnsPerHost; }
  /** Longest a caller waits for a connection from a full pool before {@code PoolTimeoutException}. */
  public Duration maxTimeoutWhenExhausted() { return maxTimeoutWhenExhausted; }
  public Duration connectTimeout() { return connectTimeout; }
  /** Read timeout of each command on a connection. */
  public Duration socketTimeout() { return socketTimeout; }
  /** How many other replicas (racks) one call may move to after its first node. */
  public int maxFailoverCount() { return maxFailoverCount; }
  public RetryPolicy retryPolicy() { return retryPolicy; }
  /** Whether non-idempotent commands are retried after a failure whose outcome is unknown. */
  public boolean retryNonIdempotent() { return retryNonIdempotent; }
  /** Default per-call deadline, or null for none (each step is still bounded by its own timeout). */
  public Duration requestDeadline() { return requestDeadline; }
  /** Consistency for calls that do not ask for one; null = the server's default (nothing is sent). */
  public ConsistencyLevel defaultConsistency() { return defaultConsistency; }
  /** Talk straight to each node's Redis (its datastore port), still routed by Dynomite tokens. */
  public boolean datastoreMode() { return datastoreMode; }
  public boolean localZoneAffinity() { return localZoneAffinity; }
  /** Token-aware (default) or round-robin routing; the engine routes with {@code Router.create(lbStrategy)}. */
  public LoadBalancing lbStrategy() { return lbStrategy; }
  public CompressionStrategy compressionStrategy() { return compressionStrategy; }
  /** Values larger than this many bytes are compressed when the strategy is THRESHOLD. */
  public int compressionThreshold() { return compressionThreshold; }
  /** Idle connections above the minimum are closed after this long unused. */
  public Duration idleTimeout() { return idleTimeout; }
  /** Idle connections are pinged after this long unused. */
  public Duration keepAliveInterval() { return keepAliveInterval; }
  /** Period of the pool maintenance task (fill to min, evict idle, keep-alive). */
  public Duration maintenanceInterval() { return maintenanceInterval; }
  /** Decayed error score at which a node is taken out of rotation. */
  public double healthErrorThreshold() { return healthErrorThreshold; }
  /** Time for a node's error score to halve. */
  public Duration healthHalfLife() { return healthHalfLife; }
  /** First wait before a down node is probed; doubles per failed probe up to {@link #healthMaxCoolDown()}. */
  public Duration healthCoolDown() { return healthCoolDown; }
  public Duration healthMaxCoolDown() { return healthMaxCoolDown; }
  /** Whether start-up fails when no node can be reached within {@link #startupTimeout()}. */
  public boolean failOnStartupIfNoHosts() { return failOnStartupIfNoHosts; }
  public Duration startupTimeout() { return startupTimeout; }

  /** Every setting with its value, in a stable order (used by the snapshot and the README table). */
  public Map<String, String> describe() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("applicationName", applicationName);
    m.put("minConnsPerHost", String.valueOf(minConnsPerHost));
    m.put("maxConnsPerHost", String.valueOf(maxConnsPerHost));
    m.put("maxTimeoutWhenExhausted", ms(maxTimeoutWhenExhausted));
    m.put("connectTimeout", ms(connectTimeout));
    m.put("socketTimeout", ms(socketTimeout));
    m.put("maxFailoverCount", String.valueOf(maxFailoverCount));
    m.put("retryPolicy", retryPolicy.toString());
    m.put("retryNonIdempotent", String.valueOf(retryNonIdempotent));
    m.put("requestDeadline", requestDeadline == null ? "none" : ms(requestDeadline));
    m.put("defaultConsistency", defaultConsistency == null ? "server default" : defaultConsistency.name());
    m.put("datastoreMode", String.valueOf(datastoreMode));
    m.put("localZoneAffinity", String.valueOf(localZoneAffinity));
    m.put("lbStrategy", lbStrategy.name());
    m.put("compressionStrategy", compressionStrategy.name());
    m.put("compressionThreshold", compressionThreshold + " B");
    m.put("idleTimeout", ms(idleTimeout));
    m.put("keepAliveInterval", ms(keepAliveInterval));
    m.put("maintenanceInterval", ms(maintenanceInterval));
    m.put("healthErrorThreshold", String.valueOf(healthErrorThreshold));
    m.put("healthHalfLife", ms(healthHalfLife));
    m.put("healthCoolDown", ms(healthCoolDown));
    m.put("healthMaxCoolDown", ms(healthMaxCoolDown));
    m.put("failOnStartupIfNoHosts", String.valueOf(failOnStartupIfNoHosts));
    m.put("startupTimeout", ms(startupTimeout));
    return m;
  }

  private static String ms(Duration d) {
    return d.toMillis() + " ms";
  }

  @Override
  public String toString() {
    return "DynoConfig" + describe();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DynoConfig c && c.describe().equals(describe());
  }

  @Override
  public int hashCode() {
    return describe().hashCode();
  }

  /** Builds a {@link DynoConfig}, validating each value as it is set. */
  public static final class Builder {
    private String applicationName = "dyno";
    private int minConnsPerHost = 1;
    private int maxConnsPerHost = 8;
    private Duration maxTimeoutWhenExhausted = Duration.ofMillis(800);
    private Duration connectTimeout = Duration.ofMillis(3000);
    private Duration socketTimeout = Duration.ofMillis(2000);
    private int maxFailoverCount = 3;
    private RetryPolicy retryPolicy = RetryPolicy.exponentialBackoff(3, Duration.ofMillis(10), Duration.ofMillis(200));
    private boolean retryNonIdempotent;
    private Duration requestDeadline;
    private ConsistencyLevel defaultConsistency;
    private boolean datastoreMode;
    private boolean localZoneAffinity = true;
    private LoadBalancing lbStrategy = LoadBalancing.TOKEN_AWARE;
    private CompressionStrategy compressionStrategy = CompressionStrategy.NONE;
    private int compressionThreshold = 5120;
    private Duration idleTimeout = Duration.ofSeconds(60);
    private Duration keepAliveInterval = Duration.ofSeconds(30);
    private Duration maintenanceInterval = Duration.ofSeconds(1);
    private double healthErrorThreshold = 5.0;
    private Duration healthHalfLife = Duration.ofSeconds(10);
    private Duration healthCoolDown = Duration.ofSeconds(5);
    private Duration healthMaxCoolDown = Duration.ofSeconds(60);
    private boolean failOnStartupIfNoHosts = true;
    private Duration startupTimeout = Duration.ofSeconds(5);

    private Builder() {}

    private Builder(DynoConfig c) {
      applicationName = c.applicationName;
      minConnsPerHost = c.minConnsPerHost;
      maxConnsPerHost = c.maxConnsPerHost;
      maxTimeoutWhenExhausted = c.maxTimeoutWhenExhausted;
      connectTimeout = c.connectTimeout;
      socketTimeout = c.socketTimeout;
      maxFailoverCount = c.maxFailoverCount;
      retryPolicy = c.retryPolicy;
      retryNonIdempotent = c.retryNonIdempotent;
      requestDeadline = c.requestDeadline;
      defaultConsistency = c.defaultConsistency;
      datastoreMode = c.datastoreMode;
      localZoneAffinity = c.localZoneAffinity;
      lbStrategy = c.lbStrategy;
      compressionStrategy = c.compressionStrategy;
      compressionThreshold = c.compressionThreshold;
      idleTimeout = c.idleTimeout;
      keepAliveInterval = c.keepAliveInterval;
      maintenanceInterval = c.maintenanceInterval;
      healthErrorThreshold = c.healthErrorThreshold;
      healthHalfLife = c.healthHalfLife;
      healthCoolDown = c.healthCoolDown;
      healthMaxCoolDown = c.healthMaxCoolDown;
      failOnStartupIfNoHosts = c.failOnStartupIfNoHosts;
      startupTimeout = c.startupTimeout;
    }

    public Builder applicationName(String name) {
      if (name == null || !name.matches("[A-Za-z0-9_.-]+")) {
        throw bad("applicationName", name, "letters, digits, '_', '.' or '-' only, not empty");
      }
      this.applicationName = name;
      return this;
    }

    public Builder minConnsPerHost(int n) {
      if (n < 0 || n > 1024) throw bad("minConnsPerHost", n, "0..1024");
      this.minConnsPerHost = n;
      return this;
    }

    public Builder maxConnsPerHost(int n) {
      if (n < 1 || n > 1024) throw bad("maxConnsPerHost", n, "1..1024");
      this.maxConnsPerHost = n;
      return this;
    }

    public Builder maxTimeoutWhenExhausted(Duration d) {
      this.maxTimeoutWhenExhausted = positive("maxTimeoutWhenExhausted", d);
      return this;
    }

    public Builder connectTimeout(Duration d) {
      this.connectTimeout = positive("connectTimeout", d);
      return this;
    }

    public Builder socketTimeout(Duration d) {
      this.socketTimeout = positive("socketTimeout", d);
      return this;
    }

    public Builder maxFailoverCount(int n) {
      if (n < 0 || n > 64) throw bad("maxFailoverCount", n, "0..64");
      this.maxFailoverCount = n;
      return this;
    }

    public Builder retryPolicy(RetryPolicy p) {
      this.retryPolicy = Objects.requireNonNull(p, "retryPolicy must not be null");
      return this;
    }

    /** Parses {@code RunOnce}, {@code RetryNTimes:<n>}, {@code ExponentialBackoff:<attempts>:<baseMs>:<maxMs>}. */
    public Builder retryPolicy(String text) {
      this.retryPolicy = RetryPolicy.parse(text);
      return this;
    }

    public Builder retryNonIdempotent(boolean b) {
      this.retryNonIdempotent = b;
      return this;
    }

    /** Default whole-call deadline; null for none. */
    public Builder requestDeadline(Duration d) {
      this.requestDeadline = d == null ? null : positive("requestDeadline", d);
      return this;
    }

    /** Null means "the server's default, send nothing". */
    public Builder defaultConsistency(ConsistencyLevel level) {
      this.defaultConsistency = level;
      return this;
    }

    public Builder datastoreMode(boolean b) {
      this.datastoreMode = b;
      return this;
    }

    public Builder localZoneAffinity(boolean b) {
      this.localZoneAffinity = b;
      return this;
    }

    public Builder lbStrategy(LoadBalancing s) {
      this.lbStrategy = Objects.requireNonNull(s, "lbStrategy must not be null");
      return this;
    }

    /** Accepts the original Dyno's {@code TokenAware} / {@code RoundRobin} as well as the enum names. */
    public Builder lbStrategy(String text) {
      String t = text == null ? "" : text.trim().replace("_", "").toLowerCase(java.util.Locale.ROOT);
      return lbStrategy(switch (t) {
        case "tokenaware" -> LoadBalancing.TOKEN_AWARE;
        case "roundrobin" -> LoadBalancing.ROUND_ROBIN;
        default -> throw bad("lbStrategy", text, "TokenAware or RoundRobin");
      });
    }

    public Builder compressionStrategy(CompressionStrategy s) {
      this.compressionStrategy = Objects.requireNonNull(s, "compressionStrategy must not be null");
      return this;
    }

    public Builder compressionThreshold(int bytes) {
      if (bytes < 0) throw bad("compressionThreshold", bytes, ">= 0 bytes");
      this.compressionThreshold = bytes;
      return this;
    }

    public Builder idleTimeout(Duration d) {
      this.idleTimeout = positive("idleTimeout", d);
      return this;
    }

    public Builder keepAliveInterval(Duration d) {
      this.keepAliveInterval = positive("keepAliveInterval", d);
      return this;
    }

    public Builder maintenanceInterval(Duration d) {
      this.maintenanceInterval = positive("maintenanceInterval", d);
      return this;
    }

    public Builder healthErrorThreshold(double score) {
      if (!(score >= 1.0 && score <= 1000.0)) throw bad("healthErrorThreshold", score, "1..1000");
      this.healthErrorThreshold = score;
      return this;
    }

    public Builder healthHalfLife(Duration d) {
      this.healthHalfLife = positive("healthHalfLife", d);
      return this;
    }

    public Builder healthCoolDown(Duration d) {
      this.healthCoolDown = positive("healthCoolDown", d);
      return this;
    }

    public Builder healthMaxCoolDown(Duration d) {
      this.healthMaxCoolDown = positive("healthMaxCoolDown", d);
      return this;
    }

    public Builder failOnStartupIfNoHosts(boolean b) {
      this.failOnStartupIfNoHosts = b;
      return this;
    }

    public Builder startupTimeout(Duration d) {
      this.startupTimeout = positive("startupTimeout", d);
      return this;
    }

    /** Checks the settings against each other, then builds. */
    public DynoConfig build() {
      if (minConnsPerHost > maxConnsPerHost) {
        throw new IllegalArgumentException("minConnsPerHost (" + minConnsPerHost
            + ") must not exceed maxConnsPerHost (" + maxConnsPerHost + ")");
      }
      if (healthMaxCoolDown.compareTo(healthCoolDown) < 0) {
        throw new IllegalArgumentException("healthMaxCoolDown (" + healthMaxCoolDown
            + ") must not be shorter than healthCoolDown (" + healthCoolDown + ")");
      }
      if (datastoreMode && defaultConsistency != null) {
        throw new IllegalArgumentException("defaultConsistency (" + defaultConsistency
            + ") cannot be set with datastoreMode=true: datastore mode talks to Redis directly, which has no"
            + " Dynomite consistency");
      }
      return new DynoConfig(this);
    }

    private static Duration positive(String name, Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw bad(name, d, "a positive duration");
      }
      return d;
    }

    private static IllegalArgumentException bad(String name, Object value, String expected) {
      return new IllegalArgumentException(name + ": invalid value " + value + "; expected " + expected);
    }
  }
}
