package io.dyno.core.config;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.routing.LoadBalancing;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Every setting of the engine (pools, timeouts, retry, failover, health, consistency), as one
 * immutable value built by a strict {@link DynoConfigBuilder} that rejects a bad value at once,
 * naming the setting. Each setting's name, default, unit, bounds, Archaius property and liveness
 * are written once, in the package's {@code Setting} table, which {@link #describe()} and
 * docs/configuration.md follow. The engine reads its configuration through a {@code
 * Supplier<DynoConfig>} on every call, so {@link ArchaiusDynoConfig} can swap in a new value: the
 * {@link #LIVE_SETTINGS} take effect.
 */
public final class DynoConfig {
  /** Names of the settings a running engine picks up when its config supplier changes. */
  public static final Set<String> LIVE_SETTINGS = Setting.ALL.stream()
      .filter(s -> s.live != Setting.Live.NO)
      .map(s -> s.name)
      .collect(Collectors.toUnmodifiableSet());

  private static final DynoConfig DEFAULTS = new DynoConfigBuilder().build();

  /** One value per {@link Setting} row, by {@code Setting.index}. */
  private final Object[] values;

  DynoConfig(Object[] values) {
    this.values = values.clone();
  }

  /** {@return the configuration with every setting at its default} Shared and immutable. */
  public static DynoConfig defaults() {
    return DEFAULTS;
  }

  /** {@return a new builder with every setting at its default} */
  public static DynoConfigBuilder builder() {
    return new DynoConfigBuilder();
  }

  /** {@return a new builder holding this configuration's values} It does not change this one. */
  public DynoConfigBuilder toBuilder() {
    return new DynoConfigBuilder(values);
  }

  /** This config's value of one setting. */
  <T> T get(Setting<T> s) {
    return s.type.cast(values[s.index]);
  }

  /**
   * {@return the application's name (default {@code dyno})}: the {@code app} tag of every meter,
   * the JMX bean's name and the Archaius prefix {@code dyno.<app>.}. Read at start.
   */
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

  /**
   * {@return the longest a caller waits for a connection of a full pool} Then the attempt fails
   * with {@code PoolTimeoutException}. Default 800 ms; live.
   */
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

  /**
   * {@return how often, and after what pause, a failed call is tried again} Default {@code
   * ExponentialBackoff:3:10:200} (and see {@link #retryNonIdempotent()}); live.
   */
  public RetryPolicy retryPolicy() {
    return get(Setting.RETRY_POLICY);
  }

  /** {@return when a read is also sent to the next replica} Default: never; live. */
  public HedgePolicy hedgeReads() {
    return get(Setting.HEDGE_READS);
  }

  /**
   * {@return whether non-idempotent commands are retried after a failure whose outcome is unknown}
   * Default false: such a command may already have been applied. Live.
   */
  public boolean retryNonIdempotent() {
    return get(Setting.RETRY_NON_IDEMPOTENT);
  }

  /**
   * {@return whether a non-idempotent write may fail over to another rack} Default false: the local
   * rack would never apply it, so counters would diverge. Live.
   */
  public boolean failoverNonIdempotentWrites() {
    return get(Setting.FAILOVER_NON_IDEMPOTENT_WRITES);
  }

  /**
   * {@return how many keys written away from their local-rack owner are remembered} Default 100000;
   * 0: none.
   */
  public int divergedKeyLimit() {
    return get(Setting.DIVERGED_KEY_LIMIT);
  }

  /**
   * {@return the default deadline of a whole call; null: none} An attempt on a node gets a share:
   * the time left over the replicas the call could still try. Live.
   */
  public Duration requestDeadline() {
    return get(Setting.REQUEST_DEADLINE);
  }

  /** {@return the consistency of calls that ask for none; null: the server's default} Live. */
  public ConsistencyLevel defaultConsistency() {
    return get(Setting.DEFAULT_CONSISTENCY);
  }

  /**
   * {@return which calls may go to another datacenter when no replica of the key in the local
   * datacenter can take them} The local datacenter is always tried first; a call this refuses fails
   * at once naming this setting. Calls that do not say they read count as writes. Default {@code
   * READS}; live.
   */
  public RemoteDatacenterFallback remoteDatacenterFallback() {
    return get(Setting.REMOTE_DC_FALLBACK);
  }

  /** {@return whether to talk straight to each node's Redis port} Default false; read at start. */
  public boolean datastoreMode() {
    return get(Setting.DATASTORE_MODE);
  }

  /**
   * {@return whether requests try the local rack first} Default true; false spreads them evenly
   * over the racks of the local datacenter. Read at start.
   */
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

  /**
   * {@return the wait between probes of a node out of rotation} It comes back after 3 in a row
   * answer within {@link #silentNodeAfter()}, 250 ms apart once one did. Default 1 s; at start.
   */
  public Duration healthCoolDown() {
    return get(Setting.HEALTH_COOL_DOWN);
  }

  /**
   * {@return the longest wait between probes} Each failed probe doubles the wait, from {@link
   * #healthCoolDown()} up to this (at or below it: no growth). Default 1 s; at start.
   */
  public Duration healthMaxCoolDown() {
    return get(Setting.HEALTH_MAX_COOL_DOWN);
  }

  /**
   * {@return the reply wait after which a timeout takes the node out of rotation at once} That is,
   * while other nodes keep answering (all late together: the client stalled, none is blamed). A
   * timeout after a shorter wait is not held against the node. Default 150 ms; live.
   */
  public Duration silentNodeAfter() {
    return get(Setting.SILENT_NODE_AFTER);
  }

  /**
   * {@return whether calls are steered away from a latency outlier} A node whose recent median
   * reply time exceeds both {@link #outlierFactor()} x its peers' and theirs + {@link
   * #outlierMinExtra()} is not preferred until its latency probes are back under that bound (its
   * calls go to another replica). Default true; live.
   */
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

  /**
   * {@return how often each node's Dynomite state is read (its admin port's {@code
   * /state/get_state})} Calls stay off a node that is not NORMAL. Default 1 s; at start.
   */
  public Duration nodeStatePollInterval() {
    return get(Setting.NODE_STATE_POLL_INTERVAL);
  }

  /**
   * {@return whether start-up fails when no node answers within {@link #startupTimeout()}} Default
   * true; false: calls fail ({@code NoAvailableHostsException}) until a refresh finds nodes.
   */
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
}
