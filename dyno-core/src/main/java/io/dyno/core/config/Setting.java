package io.dyno.core.config;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.internal.ConsistencyRefusal;
import io.dyno.core.routing.LoadBalancing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The one table of {@link DynoConfig}'s settings. Each row gives a setting's name, type, default,
 * unit, bounds, Archaius property and liveness once; the builder's validation, {@code describe()},
 * {@link DynoConfig#LIVE_SETTINGS}, {@link ArchaiusDynoConfig#PROPERTIES} and the docs table test all
 * read it. Rows are in {@code describe()} order.
 */
final class Setting<T> {
  /** Whether a running engine follows changes of a setting. */
  enum Live {
    NO("no"),
    YES("yes"),
    NEW_CONNECTIONS("yes (new connections)");

    final String readme;

    Live(String readme) {
      this.readme = readme;
    }
  }

  private static final List<Setting<?>> TABLE = new ArrayList<>();
  static final List<Setting<?>> ALL = Collections.unmodifiableList(TABLE);

  static final Setting<String> APPLICATION_NAME = row(
      "applicationName",
      String.class,
      "dyno",
      "–",
      null,
      Live.NO,
      v -> v.matches("[A-Za-z0-9_.-]+"),
      "letters, digits, '_', '.' or '-' only, not empty",
      Function.identity());
  static final Setting<Integer> MIN_CONNS = row(
      "minConnsPerHost",
      Integer.class,
      1,
      "connections",
      "connection.minConnsPerHost",
      Live.YES,
      v -> v >= 0 && v <= 1024,
      "0..1024",
      Setting::integer);
  static final Setting<Integer> MAX_CONNS = row(
      "maxConnsPerHost",
      Integer.class,
      8,
      "connections",
      "connection.maxConnsPerHost",
      Live.YES,
      v -> v >= 1 && v <= 1024,
      "1..1024",
      Setting::integer);
  static final Setting<Duration> BORROW_TIMEOUT =
      duration("maxTimeoutWhenExhausted", 800, "connection.maxTimeoutWhenExhausted", Live.YES);
  static final Setting<Duration> CONNECT_TIMEOUT =
      duration("connectTimeout", 3000, "connection.connectTimeout", Live.NEW_CONNECTIONS);
  static final Setting<Duration> SOCKET_TIMEOUT =
      duration("socketTimeout", 2000, "connection.socketTimeout", Live.NEW_CONNECTIONS);
  static final Setting<Integer> MAX_FAILOVER = row(
      "maxFailoverCount",
      Integer.class,
      3,
      "replicas",
      "connection.maxFailoverCount",
      Live.YES,
      v -> v >= 0 && v <= 64,
      "0..64",
      Setting::integer);
  static final Setting<RetryPolicy> RETRY_POLICY = row(
      "retryPolicy",
      RetryPolicy.class,
      RetryPolicy.exponentialBackoff(3, Duration.ofMillis(10), Duration.ofMillis(200)),
      "attempts:ms:ms",
      "retryPolicy",
      Live.YES,
      null,
      null,
      RetryPolicy::parse);
  static final Setting<Boolean> RETRY_NON_IDEMPOTENT =
      flag("retryNonIdempotent", false, "retryNonIdempotent", Live.YES);
  static final Setting<Boolean> FAILOVER_NON_IDEMPOTENT_WRITES =
      flag("failoverNonIdempotentWrites", false, "failoverNonIdempotentWrites", Live.YES);
  static final Setting<Integer> DIVERGED_KEY_LIMIT = row(
      "divergedKeyLimit",
      Integer.class,
      100_000,
      "keys",
      "divergedKeyLimit",
      Live.NO,
      v -> v >= 0 && v <= 100_000_000,
      "0..100000000",
      Setting::integer);
  static final Setting<HedgePolicy> HEDGE_READS = row(
      "hedgeReads",
      HedgePolicy.class,
      HedgePolicy.off(),
      "–",
      "connection.hedgeReads",
      Live.YES,
      null,
      null,
      HedgePolicy::parse);
  static final Setting<Duration> REQUEST_DEADLINE = row(
          "requestDeadline",
          Duration.class,
          null,
          "ms",
          "connection.requestDeadline",
          Live.YES,
          Setting::positive,
          "a positive duration",
          v -> v.isBlank() || v.equals("0") ? null : millis(v))
      .orNull("none");
  static final Setting<ConsistencyLevel> DEFAULT_CONSISTENCY = row(
          "defaultConsistency",
          ConsistencyLevel.class,
          null,
          "–",
          "connection.consistency",
          Live.YES,
          v -> ConsistencyRefusal.reason(v) == null,
          "DC_ONE, DC_QUORUM or DC_SAFE_QUORUM ("
              + ConsistencyRefusal.reason(ConsistencyLevel.DC_EACH_SAFE_QUORUM) + ")",
          v -> v.isBlank() ? null : ConsistencyLevel.parse(v))
      .orNull("server default");
  static final Setting<Boolean> DATASTORE_MODE =
      flag("datastoreMode", false, "connection.connectToDatastore", Live.NO);
  static final Setting<Boolean> LOCAL_ZONE_AFFINITY =
      flag("localZoneAffinity", true, "connection.localZoneAffinity", Live.NO);
  static final Setting<RemoteDatacenterFallback> REMOTE_DC_FALLBACK = row(
      "remoteDatacenterFallback",
      RemoteDatacenterFallback.class,
      RemoteDatacenterFallback.READS,
      "–",
      "connection.remoteDatacenterFallback",
      Live.YES,
      null,
      null,
      RemoteDatacenterFallback::parse);
  static final Setting<LoadBalancing> LB_STRATEGY = row(
      "lbStrategy",
      LoadBalancing.class,
      LoadBalancing.TOKEN_AWARE,
      "–",
      "lbStrategy",
      Live.NO,
      null,
      null,
      Setting::loadBalancing);
  static final Setting<Duration> IDLE_TIMEOUT =
      duration("idleTimeout", 60_000, "connection.idleTimeout", Live.NO);
  static final Setting<Duration> KEEP_ALIVE =
      duration("keepAliveInterval", 30_000, "connection.keepAliveInterval", Live.NO);
  static final Setting<Duration> MAINTENANCE_INTERVAL =
      duration("maintenanceInterval", 1000, null, Live.NO);
  static final Setting<Double> HEALTH_ERROR_THRESHOLD = row(
      "healthErrorThreshold",
      Double.class,
      5.0,
      "decayed errors",
      "health.errorThreshold",
      Live.NO,
      v -> v >= 1.0 && v <= 1000.0,
      "1..1000",
      Double::parseDouble);
  static final Setting<Duration> HEALTH_HALF_LIFE =
      duration("healthHalfLife", 10_000, "health.halfLife", Live.NO);
  static final Setting<Duration> HEALTH_COOL_DOWN =
      duration("healthCoolDown", 1000, "health.coolDown", Live.NO);
  static final Setting<Duration> HEALTH_MAX_COOL_DOWN =
      duration("healthMaxCoolDown", 1000, "health.maxCoolDown", Live.NO);
  static final Setting<Duration> SILENT_NODE_AFTER =
      duration("silentNodeAfter", 150, "health.silentNodeAfter", Live.YES);
  static final Setting<Boolean> STEER_OUTLIERS =
      flag("steerOutliers", true, "health.steerOutliers", Live.YES);
  static final Setting<Double> OUTLIER_FACTOR = row(
      "outlierFactor",
      Double.class,
      5.0,
      "x peers' median",
      "health.outlierFactor",
      Live.YES,
      v -> v > 1.0 && v <= 1000.0,
      "more than 1, at most 1000",
      Double::parseDouble);
  static final Setting<Duration> OUTLIER_MIN_EXTRA =
      duration("outlierMinExtra", 5, "health.outlierMinExtra", Live.YES);
  static final Setting<Duration> NODE_STATE_POLL_INTERVAL =
      duration("nodeStatePollInterval", 1000, "health.nodeStatePollInterval", Live.NO);
  static final Setting<Boolean> FAIL_ON_STARTUP_IF_NO_HOSTS =
      flag("failOnStartupIfNoHosts", true, "config.startup.failIfNoHosts", Live.NO);
  static final Setting<Duration> STARTUP_TIMEOUT = duration("startupTimeout", 5000, null, Live.NO);

  final int index;
  final String name;
  final Class<T> type;
  final T defaultValue;
  /** As the settings table (docs/configuration.md) shows the unit ("–" for none). */
  final String unit;
  /** Archaius property after {@code dyno.<app>.}, or null when there is none. */
  final String property;

  final Live live;
  private final Predicate<T> valid;
  private final String expected;
  private final Function<String, T> parse;
  /** How {@code describe()} shows null (null: the setting may not be null). */
  private String nullText;

  private Setting(
      String name,
      Class<T> type,
      T defaultValue,
      String unit,
      String property,
      Live live,
      Predicate<T> valid,
      String expected,
      Function<String, T> parse) {
    this.index = TABLE.size();
    this.name = name;
    this.type = type;
    this.defaultValue = defaultValue;
    this.unit = unit;
    this.property = property;
    this.live = live;
    this.valid = valid;
    this.expected = expected;
    this.parse = parse;
  }

  private static <T> Setting<T> row(
      String name,
      Class<T> type,
      T defaultValue,
      String unit,
      String property,
      Live live,
      Predicate<T> valid,
      String expected,
      Function<String, T> parse) {
    Setting<T> s =
        new Setting<>(name, type, defaultValue, unit, property, live, valid, expected, parse);
    TABLE.add(s);
    return s;
  }

  private static Setting<Duration> duration(
      String name, long defaultMillis, String property, Live live) {
    return row(
        name,
        Duration.class,
        Duration.ofMillis(defaultMillis),
        "ms",
        property,
        live,
        Setting::positive,
        "a positive duration",
        Setting::millis);
  }

  private static Setting<Boolean> flag(
      String name, boolean defaultValue, String property, Live live) {
    return row(name, Boolean.class, defaultValue, "–", property, live, null, null, Setting::bool);
  }

  private Setting<T> orNull(String text) {
    this.nullText = text;
    return this;
  }

  /** Every row's default, into {@code values} (by index): a new builder's starting point. */
  static void putDefaults(Object[] values) {
    for (Setting<?> s : ALL) {
      values[s.index] = s.defaultValue;
    }
  }

  /** Every setting's name and value as {@code describe()} shows them, in the table's order. */
  static Map<String, String> describe(Object[] values) {
    Map<String, String> m = new LinkedHashMap<>();
    for (Setting<?> s : ALL) {
      m.put(s.name, s.describeRaw(values[s.index]));
    }
    return m;
  }

  /** The value if it is within bounds; otherwise an exception naming the setting and the value. */
  T check(T value) {
    if (value == null) {
      if (nullText != null) {
        return null;
      }
      if (expected == null) {
        throw new NullPointerException(name + " must not be null");
      }
      throw bad(name, null, expected);
    }
    if (valid != null && !valid.test(value)) {
      throw bad(name, value, expected);
    }
    return value;
  }

  /** Parses an Archaius property's text (already trimmed) and checks its bounds. */
  T parse(String text) {
    return check(parse.apply(text));
  }

  /** The value without its unit, as the settings table (docs/configuration.md) shows the default. */
  String text(T value) {
    if (value == null) {
      return nullText;
    }
    return value instanceof Duration d
        ? String.valueOf(d.toMillis())
        : value instanceof Enum<?> e ? e.name() : String.valueOf(value);
  }

  /** The value as {@code describe()} shows it: with its unit for times. */
  String describe(T value) {
    String t = text(value);
    if (value == null) {
      return t;
    }
    return unit.equals("ms") ? t + " ms" : t;
  }

  /** The default as the settings table (docs/configuration.md) shows it. */
  String defaultText() {
    return text(defaultValue);
  }

  @SuppressWarnings("unchecked")
  String describeRaw(Object value) {
    return describe((T) value);
  }

  @Override
  public String toString() {
    return name;
  }

  static IllegalArgumentException bad(String name, Object value, String expected) {
    return new IllegalArgumentException(
        name + ": invalid value " + value + "; expected " + expected);
  }

  private static boolean positive(Duration d) {
    return !d.isNegative() && !d.isZero();
  }

  private static Integer integer(String v) {
    return Integer.parseInt(v);
  }

  static Duration millis(String v) {
    return Duration.ofMillis(Long.parseLong(v));
  }

  static boolean bool(String v) {
    if (v.equalsIgnoreCase("true")) return true;
    if (v.equalsIgnoreCase("false")) return false;
    throw new IllegalArgumentException("expected true or false");
  }

  /** Accepts the original Dyno's {@code TokenAware} / {@code RoundRobin} as well as the enum names. */
  static LoadBalancing loadBalancing(String text) {
    String t = text == null ? "" : text.trim().replace("_", "").toLowerCase(Locale.ROOT);
    return switch (t) {
      case "tokenaware" -> LoadBalancing.TOKEN_AWARE;
      case "roundrobin" -> LoadBalancing.ROUND_ROBIN;
      default -> throw bad("lbStrategy", text, "TokenAware or RoundRobin");
    };
  }
}
