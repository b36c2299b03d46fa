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

  /**
   * {@return a new builder holding this configuration's values} Changing it leaves this configuration
   * as it is.
   */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** This config's value of one setting. */
  <T> T get(Setting<T> s) {
    return s.type.cast(values[s.index]);
  }

  /**
   * {@return the application's name (default {@code dyno})}: the {@code app} tag of every meter, the JMX
   * bean's name and the Archaius prefix {@code dyno.<app>.}. Read at start.
   */
  public String applicationName() {
    return get(Setting.APPLICATION_NAME);
  }
  /** {@return the connections each node's pool keeps open even when idle} Default 1; live. */
  public int minConnsPerHost() {
    return get(Setting.MIN_CONNS);
  }
  /**
   * {@return the most connections a node's pool opens} Callers beyond it wait up to
   * {@link #maxTimeoutWhenExhausted()}. Default 8; live.
   */
  public int maxConnsPerHost() {
    return get(Setting.MAX_CONNS);
  }
  /**
   * {@return the longest a caller waits for a connection of a full pool} Then the attempt fails with
   * {@code PoolTimeoutException}. Default 800 ms; live.
   */
  public Duration maxTimeoutWhenExhausted() {
    return get(Setting.BORROW_TIMEOUT);
  }
  /**
   * {@return how long opening a connection to a node may take} Default 3 s; a change applies to
   * connections opened afterwards.
   */
  public Duration connectTimeout() {
    return get(Setting.CONNECT_TIMEOUT);
  }
  /**
   * {@return the read timeout of each command on a connection} Default 2 s; a change applies to
   * connections opened afterwards.
   */
  public Duration socketTimeout() {
    return get(Setting.SOCKET_TIMEOUT);
  }
  /**
   * {@return how many other replicas (racks) one call may move to after its first node} Default 3;
   * 0 never fails over; live.
   */
  public int maxFailoverCount() {
    return get(Setting.MAX_FAILOVER);
  }
  /**
   * {@return how often, and after what pause, a failed call is tried again} Default
   * {@code RetryPolicy.exponentialBackoff(3, 10 ms, 200 ms)}; non-idempotent commands only when
   * {@link #retryNonIdempotent()}; live.
   */
  public RetryPolicy retryPolicy() {
    return get(Setting.RETRY_POLICY);
  }
  /** {@return when a read is also sent to the next replica} Default {@link HedgePolicy#off()}; live. */
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
   * {@return the default deadline of a whole call, or null for none} Each step is still bounded by its
   * own timeout; a call's options may set another. Live.
   */
  public Duration requestDeadline() {
    return get(Setting.REQUEST_DEADLINE);
  }
  /**
   * {@return the consistency of calls that ask for none, or null for the server's default} With null
   * nothing is sent to the node. Live.
   */
  public ConsistencyLevel defaultConsistency() {
    return get(Setting.DEFAULT_CONSISTENCY);
  }
  /**
   * {@return whether to talk straight to each node's Redis} (its datastore port), still routed by
   * Dynomite's tokens. Default false; read at start.
   */
  public boolean datastoreMode() {
    return get(Setting.DATASTORE_MODE);
  }
  /**
   * Whether requests try the local rack first (default); false spreads them evenly over the racks of
   * the local datacenter. Applies to the topology the client builds from its host and token sources.
   */
  /**
   * {@return whether requests try the local rack first} Default true; false spreads them evenly over
   * the racks of the local datacenter. Applies to the topology the client builds from its host and
   * token sources; read at start.
   */
  public boolean localZoneAffinity() {
    return get(Setting.LOCAL_ZONE_AFFINITY);
  }
  /**
   * {@return how the engine orders the nodes of a request} Default token-aware; the engine asks it
   * once per request (see {@code DynoExecutor#route}). Read at start.
   */
  public LoadBalancing lbStrategy() {
    return get(Setting.LB_STRATEGY);
  }
  /**
   * {@return how long a connection above the pool's minimum may stay unused before it is closed}
   * Default 60 s; read at start.
   */
  public Duration idleTimeout() {
    return get(Setting.IDLE_TIMEOUT);
  }
  /** {@return how long a connection may stay unused before it is pinged} Default 30 s; read at start. */
  public Duration keepAliveInterval() {
    return get(Setting.KEEP_ALIVE);
  }
  /**
   * {@return the period of the pool maintenance task} (fill to the minimum, close idle connections,
   * ping). Default 1 s; read at start.
   */
  public Duration maintenanceInterval() {
    return get(Setting.MAINTENANCE_INTERVAL);
  }
  /**
   * {@return the decayed error score at which a node is taken out of rotation} Default 5.0; read at
   * start.
   */
  public double healthErrorThreshold() {
    return get(Setting.HEALTH_ERROR_THRESHOLD);
  }
  /** {@return the time for a node's error score to halve} Default 10 s; read at start. */
  public Duration healthHalfLife() {
    return get(Setting.HEALTH_HALF_LIFE);
  }
  /**
   * {@return the first wait before a node out of rotation is probed} It doubles per failed probe, up to
   * {@link #healthMaxCoolDown()}. Default 5 s; read at start.
   */
  public Duration healthCoolDown() {
    return get(Setting.HEALTH_COOL_DOWN);
  }
  /** {@return the longest wait between probes of a node out of rotation} Default 60 s; read at start. */
  public Duration healthMaxCoolDown() {
    return get(Setting.HEALTH_MAX_COOL_DOWN);
  }
  /**
   * {@return whether start-up fails when no node can be reached within {@link #startupTimeout()}}
   * Default true; with false calls fail with {@code NoAvailableHostsException} until a topology
   * refresh finds nodes.
   */
  public boolean failOnStartupIfNoHosts() {
    return get(Setting.FAIL_ON_STARTUP_IF_NO_HOSTS);
  }
  /** {@return how long start-up waits for the first node to be reachable} Default 5 s. */
  public Duration startupTimeout() {
    return get(Setting.STARTUP_TIMEOUT);
  }

  /**
   * {@return every setting's name and value, in the settings table's order} Used by the JMX snapshot
   * and docs/configuration.md's table; a new map on every call.
   */
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

  /**
   * Builds a {@link DynoConfig}, validating each value as it is set: a value out of bounds throws
   * {@code IllegalArgumentException} naming the setting and the value, a null where none is allowed
   * {@code NullPointerException}. Settings that depend on each other are checked by {@link #build()}.
   * Not thread-safe: one builder per thread.
   */
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

    /**
     * Sets {@link DynoConfig#applicationName()}.
     *
     * @param name letters, digits, {@code _}, {@code .} or {@code -}; not empty
     * @return this builder
     */
    public Builder applicationName(String name) {
      return set(Setting.APPLICATION_NAME, name);
    }
    /**
     * Sets {@link DynoConfig#minConnsPerHost()}.
     *
     * @param n connections, 0..1024, at most {@code maxConnsPerHost} (checked by {@link #build()})
     * @return this builder
     */
    public Builder minConnsPerHost(int n) {
      return set(Setting.MIN_CONNS, n);
    }
    /**
     * Sets {@link DynoConfig#maxConnsPerHost()}.
     *
     * @param n connections, 1..1024
     * @return this builder
     */
    public Builder maxConnsPerHost(int n) {
      return set(Setting.MAX_CONNS, n);
    }
    /**
     * Sets {@link DynoConfig#maxTimeoutWhenExhausted()}.
     *
     * @param d a positive duration
     * @return this builder
     */
    public Builder maxTimeoutWhenExhausted(Duration d) {
      return set(Setting.BORROW_TIMEOUT, d);
    }
    /**
     * Sets {@link DynoConfig#connectTimeout()}.
     *
     * @param d a positive duration
     * @return this builder
     */
    public Builder connectTimeout(Duration d) {
      return set(Setting.CONNECT_TIMEOUT, d);
    }
    /**
     * Sets {@link DynoConfig#socketTimeout()}.
     *
     * @param d a positive duration
     * @return this builder
     */
    public Builder socketTimeout(Duration d) {
      return set(Setting.SOCKET_TIMEOUT, d);
    }
    /**
     * Sets {@link DynoConfig#maxFailoverCount()}.
     *
     * @param n other replicas, 0..64
     * @return this builder
     */
    public Builder maxFailoverCount(int n) {
      return set(Setting.MAX_FAILOVER, n);
    }
    /**
     * Sets {@link DynoConfig#retryPolicy()}.
     *
     * @param p the policy; not null
     * @return this builder
     */
    public Builder retryPolicy(RetryPolicy p) {
      return set(Setting.RETRY_POLICY, p);
    }
    /**
     * Sets {@link DynoConfig#hedgeReads()}. It applies to every read of the client; a call's options
     * may override it.
     *
     * @param p the policy ({@link HedgePolicy#off()} for none); not null
     * @return this builder
     */
    public Builder hedgeReads(HedgePolicy p) {
      return set(Setting.HEDGE_READS, p);
    }

    /**
     * Sets {@link DynoConfig#retryPolicy()}. From its text form, as Archaius gives it.
     *
     * @param text {@code RunOnce}, {@code RetryNTimes:<n>[:<allowFallback>]} or
     *     {@code ExponentialBackoff:<attempts>:<baseMs>:<maxMs>} (see {@link RetryPolicy#parse(String)})
     * @return this builder
     */
    public Builder retryPolicy(String text) {
      return set(Setting.RETRY_POLICY, RetryPolicy.parse(text));
    }

    /**
     * Sets {@link DynoConfig#retryNonIdempotent()}.
     *
     * @param b true to retry commands that may already have been applied
     * @return this builder
     */
    public Builder retryNonIdempotent(boolean b) {
      return set(Setting.RETRY_NON_IDEMPOTENT, b);
    }

    /**
     * Sets {@link DynoConfig#requestDeadline()}.
     *
     * @param d a positive duration, or null for no deadline
     * @return this builder
     */
    public Builder requestDeadline(Duration d) {
      return set(Setting.REQUEST_DEADLINE, d);
    }

    /**
     * Sets {@link DynoConfig#defaultConsistency()}.
     *
     * @param level the level, or null for the server's default (nothing is sent); must be null
     *     with {@code datastoreMode} (checked by {@link #build()})
     * @return this builder
     */
    public Builder defaultConsistency(ConsistencyLevel level) {
      return set(Setting.DEFAULT_CONSISTENCY, level);
    }

    /**
     * Sets {@link DynoConfig#datastoreMode()}.
     *
     * @param b true to talk to each node's Redis directly
     * @return this builder
     */
    public Builder datastoreMode(boolean b) {
      return set(Setting.DATASTORE_MODE, b);
    }
    /**
     * Sets {@link DynoConfig#localZoneAffinity()}.
     *
     * @param b false to spread requests evenly over the local datacenter's racks
     * @return this builder
     */
    public Builder localZoneAffinity(boolean b) {
      return set(Setting.LOCAL_ZONE_AFFINITY, b);
    }
    /**
     * Sets {@link DynoConfig#lbStrategy()}.
     *
     * @param s the strategy; not null
     * @return this builder
     */
    public Builder lbStrategy(LoadBalancing s) {
      return set(Setting.LB_STRATEGY, s);
    }

    /**
     * Sets {@link DynoConfig#lbStrategy()}. From its text form, as Archaius gives it.
     *
     * @param text {@code TOKEN_AWARE} / {@code ROUND_ROBIN}, or the original Dyno's {@code TokenAware} /
     *     {@code RoundRobin}
     * @return this builder
     */
    public Builder lbStrategy(String text) {
      return set(Setting.LB_STRATEGY, Setting.loadBalancing(text));
    }

    /**
     * Sets {@link DynoConfig#idleTimeout()}.
     *
     * @param d a positive duration
     * @return this builder
     */
    public Builder idleTimeout(Duration d) {
      return set(Setting.IDLE_TIMEOUT, d);
    }
    /**
     * Sets {@link DynoConfig#keepAliveInterval()}.
     *
     * @param d a positive duration
     * @return this builder
     */
    public Builder keepAliveInterval(Duration d) {
      return set(Setting.KEEP_ALIVE, d);
    }
    /**
     * Sets {@link DynoConfig#maintenanceInterval()}.
     *
     * @param d a positive duration
     * @return this builder
     */
    public Builder maintenanceInterval(Duration d) {
      return set(Setting.MAINTENANCE_INTERVAL, d);
    }
    /**
     * Sets {@link DynoConfig#healthErrorThreshold()}.
     *
     * @param score decayed errors, 1..1000
     * @return this builder
     */
    public Builder healthErrorThreshold(double score) {
      return set(Setting.HEALTH_ERROR_THRESHOLD, score);
    }
    /**
     * Sets {@link DynoConfig#healthHalfLife()}.
     *
     * @param d a positive duration
     * @return this builder
     */
    public Builder healthHalfLife(Duration d) {
      return set(Setting.HEALTH_HALF_LIFE, d);
    }
    /**
     * Sets {@link DynoConfig#healthCoolDown()}.
     *
     * @param d a positive duration, at most {@code healthMaxCoolDown} (checked by {@link #build()})
     * @return this builder
     */
    public Builder healthCoolDown(Duration d) {
      return set(Setting.HEALTH_COOL_DOWN, d);
    }
    /**
     * Sets {@link DynoConfig#healthMaxCoolDown()}.
     *
     * @param d a positive duration
     * @return this builder
     */
    public Builder healthMaxCoolDown(Duration d) {
      return set(Setting.HEALTH_MAX_COOL_DOWN, d);
    }
    /**
     * Sets {@link DynoConfig#failOnStartupIfNoHosts()}.
     *
     * @param b false to start even when no node answers
     * @return this builder
     */
    public Builder failOnStartupIfNoHosts(boolean b) {
      return set(Setting.FAIL_ON_STARTUP_IF_NO_HOSTS, b);
    }
    /**
     * Sets {@link DynoConfig#startupTimeout()}.
     *
     * @param d a positive duration
     * @return this builder
     */
    public Builder startupTimeout(Duration d) {
      return set(Setting.STARTUP_TIMEOUT, d);
    }

    /**
     * Checks the settings against each other, then builds.
     *
     * @return a new immutable configuration
     * @throws IllegalArgumentException when {@code minConnsPerHost > maxConnsPerHost},
     *     {@code healthMaxCoolDown < healthCoolDown}, or a consistency is set with datastore mode
     */
    public DynoConfig build() {
      int min = get(Setting.MIN_CONNS);
      int max = get(Setting.MAX_CONNS);
      if (min > max) {
        throw new IllegalArgumentException(
            "minConnsPerHost (" + min + ") must not exceed maxConnsPerHost (" + max + ")");
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
