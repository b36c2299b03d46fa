package io.dyno.core.config;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.routing.LoadBalancing;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Every setting of the engine (pools, timeouts, retry, failover, health, consistency), as one
 * immutable value built by a strict {@link Builder} that rejects a bad value at once, naming the
 * setting. Each setting's name, default, unit, bounds, Archaius property and liveness are written
 * once, in the package's {@code Setting} table, which {@link #describe()} and docs/configuration.md
 * follow. The engine reads its configuration through a {@code Supplier<DynoConfig>} on every call,
 * so {@link ArchaiusDynoConfig} can swap in a new value: the {@link #LIVE_SETTINGS} take effect.
 */
public final class DynoConfig {
  /** Names of the settings a running engine picks up when its config supplier changes. */
  public static final Set<String> LIVE_SETTINGS = Setting.ALL.stream()
      .filter(s -> s.live != Setting.Live.NO)
      .map(s -> s.name)
      .collect(Collectors.toUnmodifiableSet());

  private static final DynoConfig DEFAULTS = new Builder().build();

  /** One value per {@link Setting} row, by {@code Setting.index}. */
  private final Object[] values;

  private DynoConfig(Builder b) {
    values = b.values.clone();
  }

  /** {@return the configuration with every setting at its default} Shared and immutable. */
  public static DynoConfig defaults() {
    return DEFAULTS;
  }
  /** {@return a new builder with every setting at its default} */
  public static Builder builder() {
    return new Builder();
  }
  /** {@return a new builder holding this configuration's values} It does not change this one. */
  public Builder toBuilder() {
    return new Builder(this);
  }
  /** This config's value of one setting. */
  <T> T get(Setting<T> s) {
    return s.type.cast(values[s.index]);
  }
  /** {@return the application's name (default {@code dyno})}: the {@code app} tag of every meter,
   * the JMX bean's name and the Archaius prefix {@code dyno.<app>.}. Read at start. */
  public String applicationName() {
    return get(Setting.APPLICATION_NAME);
  }
  /** {@return the connections each node's pool keeps open even when idle} Default 1; live. */
  public int minConnsPerHost() {
    return get(Setting.MIN_CONNS);
  }
  /** {@return the most connections a node's pool opens} Default 8; live. */
  public int maxConnsPerHost() {
    return get(Setting.MAX_CONNS);
  }
  /** {@return the longest a caller waits for a connection of a full pool} Then the attempt fails
   * with {@code PoolTimeoutException}. Default 800 ms; live. */
  public Duration maxTimeoutWhenExhausted() {
    return get(Setting.BORROW_TIMEOUT);
  }
  /** {@return how long opening a connection may take} Default 3 s; for connections opened later. */
  public Duration connectTimeout() {
    return get(Setting.CONNECT_TIMEOUT);
  }
  /** {@return the read timeout of each command} Default 2 s; for connections opened later. */
  public Duration socketTimeout() {
    return get(Setting.SOCKET_TIMEOUT);
  }
  /** {@return how many other replicas (racks) one call may move to} Default 3; 0: none; live. */
  public int maxFailoverCount() {
    return get(Setting.MAX_FAILOVER);
  }
  /** {@return how often, and after what pause, a failed call is tried again} Default
   * {@code ExponentialBackoff:3:10:200} (and see {@link #retryNonIdempotent()}); live. */
  public RetryPolicy retryPolicy() {
    return get(Setting.RETRY_POLICY);
  }
  /** {@return when a read is also sent to the next replica} Default: never; live. */
  public HedgePolicy hedgeReads() {
    return get(Setting.HEDGE_READS);
  }
  /** {@return whether non-idempotent commands are retried after a failure whose outcome is
   * unknown} Default false: such a command may already have been applied. Live. */
  public boolean retryNonIdempotent() {
    return get(Setting.RETRY_NON_IDEMPOTENT);
  }
  /** {@return whether a non-idempotent write may fail over to another rack} Default false: the
   * local rack would never apply it, so counters would diverge. Live. */
  public boolean failoverNonIdempotentWrites() {
    return get(Setting.FAILOVER_NON_IDEMPOTENT_WRITES);
  }
  /** {@return how many keys written away from their local-rack owner are remembered} Default
   * 100000; 0: none. */
  public int divergedKeyLimit() {
    return get(Setting.DIVERGED_KEY_LIMIT);
  }
  /** {@return the default deadline of a whole call; null: none} An attempt on a node gets a share:
   * the time left over the replicas the call could still try. Live. */
  public Duration requestDeadline() {
    return get(Setting.REQUEST_DEADLINE);
  }
  /** {@return the consistency of calls that ask for none; null: the server's default} Live. */
  public ConsistencyLevel defaultConsistency() {
    return get(Setting.DEFAULT_CONSISTENCY);
  }
  /**
   * {@return which calls may go to another datacenter when no replica of the key in the local
   * datacenter can take them} The local datacenter is always tried first; a call this refuses
   * fails at once naming this setting. Calls that do not say they read count as writes. Default
   * {@code READS}; live. */
  public RemoteDatacenterFallback remoteDatacenterFallback() {
    return get(Setting.REMOTE_DC_FALLBACK);
  }
  /** {@return whether to talk straight to each node's Redis port} Default false; read at start. */
  public boolean datastoreMode() {
    return get(Setting.DATASTORE_MODE);
  }
  /** {@return whether requests try the local rack first} Default true; false spreads them evenly
   * over the racks of the local datacenter. Read at start. */
  public boolean localZoneAffinity() {
    return get(Setting.LOCAL_ZONE_AFFINITY);
  }
  /** {@return how the engine orders the nodes of a request} Default token-aware; read at start. */
  public LoadBalancing lbStrategy() {
    return get(Setting.LB_STRATEGY);
  }
  /** {@return how long a connection above the pool's minimum may idle} Default 60 s; at start. */
  public Duration idleTimeout() {
    return get(Setting.IDLE_TIMEOUT);
  }
  /** {@return how long a connection may stay unused before it is pinged} Default 30 s; at start. */
  public Duration keepAliveInterval() {
    return get(Setting.KEEP_ALIVE);
  }
  /** {@return the period of the pool maintenance task} Default 1 s; read at start. */
  public Duration maintenanceInterval() {
    return get(Setting.MAINTENANCE_INTERVAL);
  }
  /** {@return the decayed error score at which a node leaves rotation} Default 5.0; at start. */
  public double healthErrorThreshold() {
    return get(Setting.HEALTH_ERROR_THRESHOLD);
  }
  /** {@return the time for a node's error score to halve} Default 10 s; read at start. */
  public Duration healthHalfLife() {
    return get(Setting.HEALTH_HALF_LIFE);
  }
  /** {@return the wait between probes of a node out of rotation} It comes back after 3 in a row
   * answer within {@link #silentNodeAfter()}, 250 ms apart once one did. Default 1 s; at start. */
  public Duration healthCoolDown() {
    return get(Setting.HEALTH_COOL_DOWN);
  }
  /** {@return the longest wait between probes} Each failed probe doubles the wait, from
   * {@link #healthCoolDown()} up to this (at or below it: no growth). Default 1 s; at start. */
  public Duration healthMaxCoolDown() {
    return get(Setting.HEALTH_MAX_COOL_DOWN);
  }
  /** {@return the reply wait after which a timeout takes the node out of rotation at once} That
   * is, while other nodes keep answering (all late together: the client stalled, none is blamed).
   * A timeout after a shorter wait is not held against the node. Default 150 ms; live. */
  public Duration silentNodeAfter() {
    return get(Setting.SILENT_NODE_AFTER);
  }
  /** {@return whether calls are steered away from a latency outlier} A node whose recent median
   * reply time exceeds both {@link #outlierFactor()} x its peers' and theirs +
   * {@link #outlierMinExtra()} is not preferred until its latency probes are back under that bound
   * (its calls go to another replica). Default true; live. */
  public boolean steerOutliers() {
    return get(Setting.STEER_OUTLIERS);
  }
  /** {@return how many times its peers' median latency makes a node an outlier} Default 5; live. */
  public double outlierFactor() {
    return get(Setting.OUTLIER_FACTOR);
  }
  /** {@return the least an outlier's median exceeds its peers'} Default 5 ms; live. */
  public Duration outlierMinExtra() {
    return get(Setting.OUTLIER_MIN_EXTRA);
  }
  /** {@return how often each node's Dynomite state is read (its admin port's
   * {@code /state/get_state})} Calls stay off a node that is not NORMAL. Default 1 s; at start. */
  public Duration nodeStatePollInterval() {
    return get(Setting.NODE_STATE_POLL_INTERVAL);
  }
  /** {@return whether start-up fails when no node answers within {@link #startupTimeout()}} Default
   * true; false: calls fail ({@code NoAvailableHostsException}) until a refresh finds nodes. */
  public boolean failOnStartupIfNoHosts() {
    return get(Setting.FAIL_ON_STARTUP_IF_NO_HOSTS);
  }
  /** {@return how long start-up waits for the first node to be reachable} Default 5 s. */
  public Duration startupTimeout() {
    return get(Setting.STARTUP_TIMEOUT);
  }

  /** {@return every setting's name and value, in the settings table's order} A new map. */
  public Map<String, String> describe() {
    return Setting.describe(values);
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

  /**
   * Builds a {@link DynoConfig}, checking each value as it is set (a bad one throws, naming the
   * setting and the value) and the settings that depend on each other in {@link #build()}. Each
   * setter sets the getter of the same name. Not thread-safe.
   */
  public static final class Builder {
    private final Object[] values = new Object[Setting.ALL.size()];

    private Builder() {
      Setting.putDefaults(values);
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
    /** {@return this builder} Sets {@link DynoConfig#applicationName()}.
     * @param name letters, digits, {@code _}, {@code .} or {@code -}; not empty */
    public Builder applicationName(String name) {
      return set(Setting.APPLICATION_NAME, name);
    }
    /** {@return this builder} Sets {@link DynoConfig#minConnsPerHost()}.
     * @param n connections, 0..1024, at most {@code maxConnsPerHost} (checked by build) */
    public Builder minConnsPerHost(int n) {
      return set(Setting.MIN_CONNS, n);
    }
    /** {@return this builder} Sets {@link DynoConfig#maxConnsPerHost()}.
     * @param n connections, 1..1024 */
    public Builder maxConnsPerHost(int n) {
      return set(Setting.MAX_CONNS, n);
    }
    /** {@return this builder} Sets {@link DynoConfig#maxTimeoutWhenExhausted()}.
     * @param d a positive duration */
    public Builder maxTimeoutWhenExhausted(Duration d) {
      return set(Setting.BORROW_TIMEOUT, d);
    }
    /** {@return this builder} Sets {@link DynoConfig#connectTimeout()}.
     * @param d a positive duration */
    public Builder connectTimeout(Duration d) {
      return set(Setting.CONNECT_TIMEOUT, d);
    }
    /** {@return this builder} Sets {@link DynoConfig#socketTimeout()}.
     * @param d a positive duration */
    public Builder socketTimeout(Duration d) {
      return set(Setting.SOCKET_TIMEOUT, d);
    }
    /** {@return this builder} Sets {@link DynoConfig#maxFailoverCount()}.
     * @param n other replicas, 0..64 */
    public Builder maxFailoverCount(int n) {
      return set(Setting.MAX_FAILOVER, n);
    }
    /** {@return this builder} Sets {@link DynoConfig#retryPolicy()}.
     * @param p the policy; not null */
    public Builder retryPolicy(RetryPolicy p) {
      return set(Setting.RETRY_POLICY, p);
    }
    /** {@return this builder} Sets {@link DynoConfig#hedgeReads()} (a call's options may override).
     * @param p the policy ({@link HedgePolicy#off()} for none); not null */
    public Builder hedgeReads(HedgePolicy p) {
      return set(Setting.HEDGE_READS, p);
    }
    /** {@return this builder} Sets {@link DynoConfig#retryPolicy()} from its Archaius text.
     * @param text as {@link RetryPolicy#parse(String)} reads it, e.g. {@code RetryNTimes:2} */
    public Builder retryPolicy(String text) {
      return set(Setting.RETRY_POLICY, RetryPolicy.parse(text));
    }
    /** {@return this builder} Sets {@link DynoConfig#retryNonIdempotent()}.
     * @param b true to retry commands that may already have been applied */
    public Builder retryNonIdempotent(boolean b) {
      return set(Setting.RETRY_NON_IDEMPOTENT, b);
    }
    /** {@return this builder} Sets {@link DynoConfig#failoverNonIdempotentWrites()}.
     * @param b true to let a non-idempotent write go to another rack (counters may then diverge) */
    public Builder failoverNonIdempotentWrites(boolean b) {
      return set(Setting.FAILOVER_NON_IDEMPOTENT_WRITES, b);
    }
    /** {@return this builder} Sets {@link DynoConfig#divergedKeyLimit()}.
     * @param n 0..100000000 (0: remember none) */
    public Builder divergedKeyLimit(int n) {
      return set(Setting.DIVERGED_KEY_LIMIT, n);
    }
    /** {@return this builder} Sets {@link DynoConfig#requestDeadline()}.
     * @param d a positive duration, or null for no deadline */
    public Builder requestDeadline(Duration d) {
      return set(Setting.REQUEST_DEADLINE, d);
    }
    /** {@return this builder} Sets {@link DynoConfig#defaultConsistency()}.
     * @param level the level, or null for the server's default; null with {@code datastoreMode} */
    public Builder defaultConsistency(ConsistencyLevel level) {
      return set(Setting.DEFAULT_CONSISTENCY, level);
    }
    /** {@return this builder} Sets {@link DynoConfig#remoteDatacenterFallback()}.
     * @param f which calls may go to another datacenter; not null */
    public Builder remoteDatacenterFallback(RemoteDatacenterFallback f) {
      return set(Setting.REMOTE_DC_FALLBACK, f);
    }
    /** {@return this builder} Sets {@link DynoConfig#datastoreMode()}.
     * @param b true to talk to each node's Redis directly */
    public Builder datastoreMode(boolean b) {
      return set(Setting.DATASTORE_MODE, b);
    }
    /** {@return this builder} Sets {@link DynoConfig#localZoneAffinity()}.
     * @param b false to spread requests evenly over the local datacenter's racks */
    public Builder localZoneAffinity(boolean b) {
      return set(Setting.LOCAL_ZONE_AFFINITY, b);
    }
    /** {@return this builder} Sets {@link DynoConfig#lbStrategy()}.
     * @param s the strategy; not null */
    public Builder lbStrategy(LoadBalancing s) {
      return set(Setting.LB_STRATEGY, s);
    }
    /** {@return this builder} Sets {@link DynoConfig#lbStrategy()} from its Archaius text.
     * @param text {@code TOKEN_AWARE} or {@code ROUND_ROBIN} (or {@code TokenAware} ...) */
    public Builder lbStrategy(String text) {
      return set(Setting.LB_STRATEGY, Setting.loadBalancing(text));
    }
    /** {@return this builder} Sets {@link DynoConfig#idleTimeout()}.
     * @param d a positive duration */
    public Builder idleTimeout(Duration d) {
      return set(Setting.IDLE_TIMEOUT, d);
    }
    /** {@return this builder} Sets {@link DynoConfig#keepAliveInterval()}.
     * @param d a positive duration */
    public Builder keepAliveInterval(Duration d) {
      return set(Setting.KEEP_ALIVE, d);
    }
    /** {@return this builder} Sets {@link DynoConfig#maintenanceInterval()}.
     * @param d a positive duration */
    public Builder maintenanceInterval(Duration d) {
      return set(Setting.MAINTENANCE_INTERVAL, d);
    }
    /** {@return this builder} Sets {@link DynoConfig#healthErrorThreshold()}.
     * @param score decayed errors, 1..1000 */
    public Builder healthErrorThreshold(double score) {
      return set(Setting.HEALTH_ERROR_THRESHOLD, score);
    }
    /** {@return this builder} Sets {@link DynoConfig#healthHalfLife()}.
     * @param d a positive duration */
    public Builder healthHalfLife(Duration d) {
      return set(Setting.HEALTH_HALF_LIFE, d);
    }
    /** {@return this builder} Sets {@link DynoConfig#healthCoolDown()}.
     * @param d a positive duration */
    public Builder healthCoolDown(Duration d) {
      return set(Setting.HEALTH_COOL_DOWN, d);
    }
    /** {@return this builder} Sets {@link DynoConfig#healthMaxCoolDown()}.
     * @param d a positive duration */
    public Builder healthMaxCoolDown(Duration d) {
      return set(Setting.HEALTH_MAX_COOL_DOWN, d);
    }
    /** {@return this builder} Sets {@link DynoConfig#silentNodeAfter()}.
     * @param d a positive duration */
    public Builder silentNodeAfter(Duration d) {
      return set(Setting.SILENT_NODE_AFTER, d);
    }
    /** {@return this builder} Sets {@link DynoConfig#steerOutliers()}.
     * @param b false to keep calls on slow nodes */
    public Builder steerOutliers(boolean b) {
      return set(Setting.STEER_OUTLIERS, b);
    }
    /** {@return this builder} Sets {@link DynoConfig#outlierFactor()}.
     * @param factor more than 1, at most 1000 */
    public Builder outlierFactor(double factor) {
      return set(Setting.OUTLIER_FACTOR, factor);
    }
    /** {@return this builder} Sets {@link DynoConfig#outlierMinExtra()}.
     * @param d a positive duration */
    public Builder outlierMinExtra(Duration d) {
      return set(Setting.OUTLIER_MIN_EXTRA, d);
    }
    /** {@return this builder} Sets {@link DynoConfig#nodeStatePollInterval()}.
     * @param d a positive duration */
    public Builder nodeStatePollInterval(Duration d) {
      return set(Setting.NODE_STATE_POLL_INTERVAL, d);
    }
    /** {@return this builder} Sets {@link DynoConfig#failOnStartupIfNoHosts()}.
     * @param b false to start even when no node answers */
    public Builder failOnStartupIfNoHosts(boolean b) {
      return set(Setting.FAIL_ON_STARTUP_IF_NO_HOSTS, b);
    }
    /** {@return this builder} Sets {@link DynoConfig#startupTimeout()}.
     * @param d a positive duration */
    public Builder startupTimeout(Duration d) {
      return set(Setting.STARTUP_TIMEOUT, d);
    }
    /** {@return a new immutable configuration} Checks the settings against each other first.
     * @throws IllegalArgumentException when {@code minConnsPerHost > maxConnsPerHost}, or a
     *     consistency is set with datastore mode */
    public DynoConfig build() {
      SettingChecks.checkTogether(this::get);
      return new DynoConfig(this);
    }
  }
}
