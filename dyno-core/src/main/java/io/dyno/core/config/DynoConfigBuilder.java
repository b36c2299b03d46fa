package io.dyno.core.config;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.routing.LoadBalancing;
import java.time.Duration;

/**
 * Builds a {@link DynoConfig}, checking each value as it is set (a bad one throws, naming the
 * setting and the value) and the settings that depend on each other in {@link #build()}. Each
 * setter sets the getter of the same name. Not thread-safe.
 */
public final class DynoConfigBuilder {
  private final Object[] values = new Object[Setting.ALL.size()];

  DynoConfigBuilder() {
    Setting.putDefaults(values);
  }

  /** A builder holding a configuration's {@code values} (copied). */
  DynoConfigBuilder(Object[] values) {
    System.arraycopy(values, 0, this.values, 0, this.values.length);
  }

  /** Sets one setting after checking it against its row's bounds. */
  <T> DynoConfigBuilder set(Setting<T> s, T value) {
    values[s.index] = s.check(value);
    return this;
  }

  <T> T get(Setting<T> s) {
    return s.type.cast(values[s.index]);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#applicationName()}.
   *
   * @param name letters, digits, {@code _}, {@code .} or {@code -}; not empty
   */
  public DynoConfigBuilder applicationName(String name) {
    return set(Setting.APPLICATION_NAME, name);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#minConnsPerHost()}.
   *
   * @param n connections, 0..1024, at most {@code maxConnsPerHost} (checked by build)
   */
  public DynoConfigBuilder minConnsPerHost(int n) {
    return set(Setting.MIN_CONNS, n);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#maxConnsPerHost()}.
   *
   * @param n connections, 1..1024
   */
  public DynoConfigBuilder maxConnsPerHost(int n) {
    return set(Setting.MAX_CONNS, n);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#maxTimeoutWhenExhausted()}.
   *
   * @param d a positive duration
   */
  public DynoConfigBuilder maxTimeoutWhenExhausted(Duration d) {
    return set(Setting.BORROW_TIMEOUT, d);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#connectTimeout()}.
   *
   * @param d a positive duration
   */
  public DynoConfigBuilder connectTimeout(Duration d) {
    return set(Setting.CONNECT_TIMEOUT, d);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#socketTimeout()}.
   *
   * @param d a positive duration
   */
  public DynoConfigBuilder socketTimeout(Duration d) {
    return set(Setting.SOCKET_TIMEOUT, d);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#maxFailoverCount()}.
   *
   * @param n other replicas, 0..64
   */
  public DynoConfigBuilder maxFailoverCount(int n) {
    return set(Setting.MAX_FAILOVER, n);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#retryPolicy()}.
   *
   * @param p the policy; not null
   */
  public DynoConfigBuilder retryPolicy(RetryPolicy p) {
    return set(Setting.RETRY_POLICY, p);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#hedgeReads()} (a call's options may override).
   *
   * @param p the policy ({@link HedgePolicy#off()} for none); not null
   */
  public DynoConfigBuilder hedgeReads(HedgePolicy p) {
    return set(Setting.HEDGE_READS, p);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#retryPolicy()} from its Archaius text.
   *
   * @param text as {@link RetryPolicy#parse(String)} reads it, e.g. {@code RetryNTimes:2}
   */
  public DynoConfigBuilder retryPolicy(String text) {
    return set(Setting.RETRY_POLICY, RetryPolicy.parse(text));
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#retryNonIdempotent()}.
   *
   * @param b true to retry commands that may already have been applied
   */
  public DynoConfigBuilder retryNonIdempotent(boolean b) {
    return set(Setting.RETRY_NON_IDEMPOTENT, b);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#failoverNonIdempotentWrites()}.
   *
   * @param b true to let a non-idempotent write go to another rack (counters may then diverge)
   */
  public DynoConfigBuilder failoverNonIdempotentWrites(boolean b) {
    return set(Setting.FAILOVER_NON_IDEMPOTENT_WRITES, b);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#divergedKeyLimit()}.
   *
   * @param n 0..100000000 (0: remember none)
   */
  public DynoConfigBuilder divergedKeyLimit(int n) {
    return set(Setting.DIVERGED_KEY_LIMIT, n);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#requestDeadline()}.
   *
   * @param d a positive duration, or null for no deadline
   */
  public DynoConfigBuilder requestDeadline(Duration d) {
    return set(Setting.REQUEST_DEADLINE, d);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#defaultConsistency()}.
   *
   * @param level the level, or null for the server's default; null with {@code datastoreMode}
   */
  public DynoConfigBuilder defaultConsistency(ConsistencyLevel level) {
    return set(Setting.DEFAULT_CONSISTENCY, level);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#remoteDatacenterFallback()}.
   *
   * @param f which calls may go to another datacenter; not null
   */
  public DynoConfigBuilder remoteDatacenterFallback(RemoteDatacenterFallback f) {
    return set(Setting.REMOTE_DC_FALLBACK, f);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#datastoreMode()}.
   *
   * @param b true to talk to each node's Redis directly
   */
  public DynoConfigBuilder datastoreMode(boolean b) {
    return set(Setting.DATASTORE_MODE, b);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#localZoneAffinity()}.
   *
   * @param b false to spread requests evenly over the local datacenter's racks
   */
  public DynoConfigBuilder localZoneAffinity(boolean b) {
    return set(Setting.LOCAL_ZONE_AFFINITY, b);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#lbStrategy()}.
   *
   * @param s the strategy; not null
   */
  public DynoConfigBuilder lbStrategy(LoadBalancing s) {
    return set(Setting.LB_STRATEGY, s);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#lbStrategy()} from its Archaius text.
   *
   * @param text {@code TOKEN_AWARE} or {@code ROUND_ROBIN} (or {@code TokenAware} ...)
   */
  public DynoConfigBuilder lbStrategy(String text) {
    return set(Setting.LB_STRATEGY, Setting.loadBalancing(text));
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#idleTimeout()}.
   *
   * @param d a positive duration
   */
  public DynoConfigBuilder idleTimeout(Duration d) {
    return set(Setting.IDLE_TIMEOUT, d);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#keepAliveInterval()}.
   *
   * @param d a positive duration
   */
  public DynoConfigBuilder keepAliveInterval(Duration d) {
    return set(Setting.KEEP_ALIVE, d);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#maintenanceInterval()}.
   *
   * @param d a positive duration
   */
  public DynoConfigBuilder maintenanceInterval(Duration d) {
    return set(Setting.MAINTENANCE_INTERVAL, d);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#healthErrorThreshold()}.
   *
   * @param score decayed errors, 1..1000
   */
  public DynoConfigBuilder healthErrorThreshold(double score) {
    return set(Setting.HEALTH_ERROR_THRESHOLD, score);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#healthHalfLife()}.
   *
   * @param d a positive duration
   */
  public DynoConfigBuilder healthHalfLife(Duration d) {
    return set(Setting.HEALTH_HALF_LIFE, d);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#healthCoolDown()}.
   *
   * @param d a positive duration
   */
  public DynoConfigBuilder healthCoolDown(Duration d) {
    return set(Setting.HEALTH_COOL_DOWN, d);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#healthMaxCoolDown()}.
   *
   * @param d a positive duration
   */
  public DynoConfigBuilder healthMaxCoolDown(Duration d) {
    return set(Setting.HEALTH_MAX_COOL_DOWN, d);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#silentNodeAfter()}.
   *
   * @param d a positive duration
   */
  public DynoConfigBuilder silentNodeAfter(Duration d) {
    return set(Setting.SILENT_NODE_AFTER, d);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#steerOutliers()}.
   *
   * @param b false to keep calls on slow nodes
   */
  public DynoConfigBuilder steerOutliers(boolean b) {
    return set(Setting.STEER_OUTLIERS, b);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#outlierFactor()}.
   *
   * @param factor more than 1, at most 1000
   */
  public DynoConfigBuilder outlierFactor(double factor) {
    return set(Setting.OUTLIER_FACTOR, factor);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#outlierMinExtra()}.
   *
   * @param d a positive duration
   */
  public DynoConfigBuilder outlierMinExtra(Duration d) {
    return set(Setting.OUTLIER_MIN_EXTRA, d);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#nodeStatePollInterval()}.
   *
   * @param d a positive duration
   */
  public DynoConfigBuilder nodeStatePollInterval(Duration d) {
    return set(Setting.NODE_STATE_POLL_INTERVAL, d);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#failOnStartupIfNoHosts()}.
   *
   * @param b false to start even when no node answers
   */
  public DynoConfigBuilder failOnStartupIfNoHosts(boolean b) {
    return set(Setting.FAIL_ON_STARTUP_IF_NO_HOSTS, b);
  }

  /**
   * {@return this builder} Sets {@link DynoConfig#startupTimeout()}.
   *
   * @param d a positive duration
   */
  public DynoConfigBuilder startupTimeout(Duration d) {
    return set(Setting.STARTUP_TIMEOUT, d);
  }

  /**
   * {@return a new immutable configuration} Checks the settings against each other first.
   *
   * @throws IllegalArgumentException when {@code minConnsPerHost > maxConnsPerHost}, or a
   *     consistency is set with datastore mode
   */
  public DynoConfig build() {
    SettingChecks.checkTogether(this::get);
    return new DynoConfig(values);
  }
}
