package io.dyno.core.config;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.routing.LoadBalancing;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Every setting of the engine (pools, timeouts, retry, failover, health, consistency), as one
 * immutable value built by a strict {@link Builder}: a bad value is rejected at once with the
 * setting's name and the value. Each setting's name, default, unit, bounds, Archaius property and
 * liveness are written once, in the package's {@code Setting} table; {@link #describe()} and the
 * settings table of docs/configuration.md (checked by a test) list them.
 *
 * <p>The engine reads its configuration through a {@code Supplier<DynoConfig>} on every call, so a
 * source like {@link ArchaiusDynoConfig} can swap in a new value. Settings that take effect live
 * ({@link #LIVE_SETTINGS}): pool bounds, borrow timeout, failover count, retry policy, connect and
 * socket timeouts (for connections opened afterwards), default consistency, request deadline.
 * The others are read once when the engine starts.
 */
public final class DynoConfig {
  /** Names of the settings a running engine picks up when its config supplier changes. */
  public static final Set<String> LIVE_SETTINGS = Setting.ALL.stream()
      .filter(s -> s.live != Setting.Live.NO).map(s -> s.name)
      .collect(Collectors.toUnmodifiableSet());

  private static final DynoConfig DEFAULTS = new Builder().build();

  /** One value per {@link Setting} row, by {@code Setting.index}. */
  private final Object[] values;

  private DynoConfig(Builder b) {
    values = b.values.clone();
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

  /** This config's value of one setting. */
  <T> T get(Setting<T> s) {
    return s.type.cast(values[s.index]);
  }

  /** Names meters ({@code app} tag) and Archaius properties ({@code dyno.<app>.*}). */
  public String applicationName() { return get(Setting.APPLICATION_NAME); }
  /** Connections each node's pool keeps open even when idle. */
  public int minConnsPerHost() { return get(Setting.MIN_CONNS); }
  /** Most connections a node's pool opens (borrowers wait beyond that). */
  public int maxConnsPerHost() { return get(Setting.MAX_CONNS); }
  /** Longest a caller waits for a connection from a full pool before {@code PoolTimeoutException}. */
  public Duration maxTimeoutWhenExhausted() { return get(Setting.BORROW_TIMEOUT); }
  public Duration connectTimeout() { return get(Setting.CONNECT_TIMEOUT); }
  /** Read timeout of each command on a connection. */
  public Duration socketTimeout() { return get(Setting.SOCKET_TIMEOUT); }
  /** How many other replicas (racks) one call may move to after its first node. */
  public int maxFailoverCount() { return get(Setting.MAX_FAILOVER); }
  public RetryPolicy retryPolicy() { return get(Setting.RETRY_POLICY); }
  /** When reads are also sent to the next replica (off by default; see {@link HedgePolicy}). */
  public HedgePolicy hedgeReads() { return get(Setting.HEDGE_READS); }
  /** Whether non-idempotent commands are retried after a failure whose outcome is unknown. */
  public boolean retryNonIdempotent() { return get(Setting.RETRY_NON_IDEMPOTENT); }
  /** Default per-call deadline, or null for none (each step is still bounded by its own timeout). */
  public Duration requestDeadline() { return get(Setting.REQUEST_DEADLINE); }
  /** Consistency for calls that do not ask for one; null = the server's default (nothing is sent). */
  public ConsistencyLevel defaultConsistency() { return get(Setting.DEFAULT_CONSISTENCY); }
  /** Talk straight to each node's Redis (its datastore port), still routed by Dynomite tokens. */
  public boolean datastoreMode() { return get(Setting.DATASTORE_MODE); }
  /**
   * Whether requests try the local rack first (default); false spreads them evenly over the racks of
   * the local datacenter. Applies to the topology the client builds from its host and token sources.
   */
  public boolean localZoneAffinity() { return get(Setting.LOCAL_ZONE_AFFINITY); }
  /** Token-aware (default) or round-robin routing; the engine asks it once per request (see {@code DynoExecutor#route}). */
  public LoadBalancing lbStrategy() { return get(Setting.LB_STRATEGY); }
  /** Idle connections above the minimum are closed after this long unused. */
  public Duration idleTimeout() { return get(Setting.IDLE_TIMEOUT); }
  /** Idle connections are pinged after this long unused. */
  public Duration keepAliveInterval() { return get(Setting.KEEP_ALIVE); }
  /** Period of the pool maintenance task (fill to min, evict idle, keep-alive). */
  public Duration maintenanceInterval() { return get(Setting.MAINTENANCE_INTERVAL); }
  /** Decayed error score at which a node is taken out of rotation. */
  public double healthErrorThreshold() { return get(Setting.HEALTH_ERROR_THRESHOLD); }
  /** Time for a node's error score to halve. */
  public Duration healthHalfLife() { return get(Setting.HEALTH_HALF_LIFE); }
  /** First wait before a down node is probed; doubles per failed probe up to {@link #healthMaxCoolDown()}. */
  public Duration healthCoolDown() { return get(Setting.HEALTH_COOL_DOWN); }
  public Duration healthMaxCoolDown() { return get(Setting.HEALTH_MAX_COOL_DOWN); }
  /** Whether start-up fails when no node can be reached within {@link #startupTimeout()}. */
  public boolean failOnStartupIfNoHosts() { return get(Setting.FAIL_ON_STARTUP_IF_NO_HOSTS); }
  public Duration startupTimeout() { return get(Setting.STARTUP_TIMEOUT); }

  /** Every setting with its value, in a stable order (used by the snapshot and the docs settings table). */
  public Map<String, String> describe() {
    Map<String, String> m = new LinkedHashMap<>();
    for (Setting<?> s : Setting.ALL) {
      m.put(s.name, s.describeRaw(values[s.index]));
    }
    return m;
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
    private final Object[] values = new Object[Setting.ALL.size()];

    private Builder() {
      for (Setting<?> s : Setting.ALL) {
        values[s.index] = s.defaultValue;
      }
    }

    private Builder(DynoConfig c) {
      System.arraycopy(c.values, 0, values, 0, values.length);
    }

    /** Sets one setting after checking it against its row's bounds. */
    <T> Builder set(Setting<T> s, T value) {
      values[s.index] = s.check(value);
      return this;
    }

    <T> T get(Setting<T> s) {
      return s.type.cast(values[s.index]);
    }

    public Builder applicationName(String name) { return set(Setting.APPLICATION_NAME, name); }
    public Builder minConnsPerHost(int n) { return set(Setting.MIN_CONNS, n); }
    public Builder maxConnsPerHost(int n) { return set(Setting.MAX_CONNS, n); }
    public Builder maxTimeoutWhenExhausted(Duration d) { return set(Setting.BORROW_TIMEOUT, d); }
    public Builder connectTimeout(Duration d) { return set(Setting.CONNECT_TIMEOUT, d); }
    public Builder socketTimeout(Duration d) { return set(Setting.SOCKET_TIMEOUT, d); }
    public Builder maxFailoverCount(int n) { return set(Setting.MAX_FAILOVER, n); }
    public Builder retryPolicy(RetryPolicy p) { return set(Setting.RETRY_POLICY, p); }
    /** Hedged reads for every read of the client (a call's options may override it). */
    public Builder hedgeReads(HedgePolicy p) { return set(Setting.HEDGE_READS, p); }

    /** Parses {@code RunOnce}, {@code RetryNTimes:<n>}, {@code ExponentialBackoff:<attempts>:<baseMs>:<maxMs>}. */
    public Builder retryPolicy(String text) { return set(Setting.RETRY_POLICY, RetryPolicy.parse(text)); }

    public Builder retryNonIdempotent(boolean b) { return set(Setting.RETRY_NON_IDEMPOTENT, b); }

    /** Default whole-call deadline; null for none. */
    public Builder requestDeadline(Duration d) { return set(Setting.REQUEST_DEADLINE, d); }

    /** Null means "the server's default, send nothing". */
    public Builder defaultConsistency(ConsistencyLevel level) { return set(Setting.DEFAULT_CONSISTENCY, level); }

    public Builder datastoreMode(boolean b) { return set(Setting.DATASTORE_MODE, b); }
    public Builder localZoneAffinity(boolean b) { return set(Setting.LOCAL_ZONE_AFFINITY, b); }
    public Builder lbStrategy(LoadBalancing s) { return set(Setting.LB_STRATEGY, s); }

    /** Accepts the original Dyno's {@code TokenAware} / {@code RoundRobin} as well as the enum names. */
    public Builder lbStrategy(String text) { return set(Setting.LB_STRATEGY, Setting.loadBalancing(text)); }

    public Builder idleTimeout(Duration d) { return set(Setting.IDLE_TIMEOUT, d); }
    public Builder keepAliveInterval(Duration d) { return set(Setting.KEEP_ALIVE, d); }
    public Builder maintenanceInterval(Duration d) { return set(Setting.MAINTENANCE_INTERVAL, d); }
    public Builder healthErrorThreshold(double score) { return set(Setting.HEALTH_ERROR_THRESHOLD, score); }
    public Builder healthHalfLife(Duration d) { return set(Setting.HEALTH_HALF_LIFE, d); }
    public Builder healthCoolDown(Duration d) { return set(Setting.HEALTH_COOL_DOWN, d); }
    public Builder healthMaxCoolDown(Duration d) { return set(Setting.HEALTH_MAX_COOL_DOWN, d); }
    public Builder failOnStartupIfNoHosts(boolean b) { return set(Setting.FAIL_ON_STARTUP_IF_NO_HOSTS, b); }
    public Builder startupTimeout(Duration d) { return set(Setting.STARTUP_TIMEOUT, d); }

    /** Checks the settings against each other, then builds. */
    public DynoConfig build() {
      int min = get(Setting.MIN_CONNS);
      int max = get(Setting.MAX_CONNS);
      if (min > max) {
        throw new IllegalArgumentException("minConnsPerHost (" + min + ") must not exceed maxConnsPerHost (" + max + ")");
      }
      Duration coolDown = get(Setting.HEALTH_COOL_DOWN);
      Duration maxCoolDown = get(Setting.HEALTH_MAX_COOL_DOWN);
      if (maxCoolDown.compareTo(coolDown) < 0) {
        throw new IllegalArgumentException("healthMaxCoolDown (" + maxCoolDown
            + ") must not be shorter than healthCoolDown (" + coolDown + ")");
      }
      ConsistencyLevel consistency = get(Setting.DEFAULT_CONSISTENCY);
      if (get(Setting.DATASTORE_MODE) && consistency != null) {
        throw new IllegalArgumentException("defaultConsistency (" + consistency
            + ") cannot be set with datastoreMode=true: datastore mode talks to Redis directly, which has no"
            + " Dynomite consistency");
      }
      return new DynoConfig(this);
    }
  }
}
