package io.dyno.core.config;

import com.netflix.archaius.api.Config;
import com.netflix.archaius.api.ConfigListener;
import io.dyno.core.ConsistencyLevel;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a {@link DynoConfig} from Archaius 2 properties {@code dyno.<app>.*}, keeping the original
 * Dyno's names where they exist, and follows changes of the live subset
 * ({@link DynoConfig#LIVE_SETTINGS}). Pass it to {@code DynoEngine.builder(..).config(supplier)}.
 * archaius2-core is an optional dependency: only users of this class need it.
 *
 * <p>At construction a bad value fails with the property name and value. Later, a bad value of a
 * live property is logged once and ignored (that setting keeps its previous value, the other
 * properties still apply); settings outside the live subset are read once. To have a running
 * {@code DynoJedisClient} follow changes, pass this object itself to its builder's
 * {@code config(Supplier)}.
 * See {@link #PROPERTIES} for every property, its setting and whether it is live.
 */
public final class ArchaiusDynoConfig implements Supplier<DynoConfig>, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ArchaiusDynoConfig.class);

  /** Property suffix (after {@code dyno.<app>.}) → DynoConfig setting. */
  public static final Map<String, String> PROPERTIES;

  static {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("connection.minConnsPerHost", "minConnsPerHost");
    m.put("connection.maxConnsPerHost", "maxConnsPerHost");
    m.put("connection.maxTimeoutWhenExhausted", "maxTimeoutWhenExhausted");
    m.put("connection.maxFailoverCount", "maxFailoverCount");
    m.put("connection.connectTimeout", "connectTimeout");
    m.put("connection.socketTimeout", "socketTimeout");
    m.put("connection.localZoneAffinity", "localZoneAffinity");
    m.put("connection.consistency", "defaultConsistency");
    m.put("connection.requestDeadline", "requestDeadline");
    m.put("connection.connectToDatastore", "datastoreMode");
    m.put("connection.idleTimeout", "idleTimeout");
    m.put("connection.keepAliveInterval", "keepAliveInterval");
    m.put("lbStrategy", "lbStrategy");
    m.put("retryPolicy", "retryPolicy");
    m.put("retryNonIdempotent", "retryNonIdempotent");
    m.put("compressionStrategy", "compressionStrategy");
    m.put("config.compressionThreshold", "compressionThreshold");
    m.put("config.startup.failIfNoHosts", "failOnStartupIfNoHosts");
    m.put("health.errorThreshold", "healthErrorThreshold");
    m.put("health.halfLife", "healthHalfLife");
    m.put("health.coolDown", "healthCoolDown");
    m.put("health.maxCoolDown", "healthMaxCoolDown");
    PROPERTIES = java.util.Collections.unmodifiableMap(m);
  }

  /** Original Dyno properties that have no effect here (prefix match), with what to do instead. */
  static final Map<String, String> ORIGINAL_ONLY = Map.of(
      "dualwrite.", "dual writes are DynoJedisClient.Builder.shadowCluster(client, percent, queueCapacity)",
      "config.lock.votingSize", "dyno-recipes' QuorumLock is given its voters in code",
      "errorRateConfig", "node health decays by itself here (health.* properties)",
      "config.publisher.address", "there is no configuration phone-home",
      "connection.metrics.resetFrequencySeconds", "Spectator meters are never reset");

  private final Config archaius;
  private final List<String> unused = new java.util.ArrayList<>();
  private final String prefix;
  private final DynoConfig initial;
  private final ConfigListener listener;
  private volatile DynoConfig current;
  private final Map<String, String> reportedBad = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * @param archaius the application's Archaius config
   * @param base programmatic values used where no property is set (its applicationName picks the prefix)
   */
  public ArchaiusDynoConfig(Config archaius, DynoConfig base) {
    this.archaius = archaius;
    this.prefix = "dyno." + base.applicationName() + ".";
    this.initial = read(base);
    findUnused();
    this.current = initial;
    this.listener = new ConfigListener() {
      @Override public void onConfigAdded(Config config) { refresh(); }
      @Override public void onConfigRemoved(Config config) { refresh(); }
      @Override public void onConfigUpdated(Config config) { refresh(); }
      @Override public void onError(Throwable error, Config config) { }
    };
    archaius.addListener(listener);
  }

  /**
   * The properties under {@code dyno.<app>.} that this class does not read, each with the reason
   * (found at construction and logged once as a warning): settings of the original Dyno that have
   * no counterpart here, and names it does not know (typos).
   */
  public List<String> unusedProperties() {
    return List.copyOf(unused);
  }

  private void findUnused() {
    java.util.Iterator<String> keys = archaius.getKeys(prefix);
    while (keys.hasNext()) {
      String key = keys.next();
      String suffix = key.startsWith(prefix) ? key.substring(prefix.length()) : key;
      if (PROPERTIES.containsKey(suffix)) {
        continue;
      }
      String why = "not a Dyno property (see ArchaiusDynoConfig.PROPERTIES)";
      for (Map.Entry<String, String> e : ORIGINAL_ONLY.entrySet()) {
        if (suffix.startsWith(e.getKey())) {
          why = "a setting of the original Dyno with no effect here: " + e.getValue();
        }
      }
      unused.add(prefix + suffix + ": " + why);
      log.warn("property {}{} is ignored: {}", prefix, suffix, why);
    }
  }

  @Override
  public DynoConfig get() {
    return current;
  }

  /**
   * Re-reads the live settings (also called by Archaius on every change). Each live property is
   * taken on its own: a bad value keeps that setting's previous value (reported once per value) and
   * never holds back the other properties; a removed property goes back to its value at start.
   * Settings outside the live subset are not re-read, so a bad one cannot block anything.
   */
  public synchronized void refresh() {
    DynoConfig prev = current;
    DynoConfig.Builder b = initial.toBuilder();
    int max = live("connection.maxConnsPerHost", initial.maxConnsPerHost(), prev.maxConnsPerHost(),
        v -> check(prev.toBuilder().minConnsPerHost(0).maxConnsPerHost(Integer.parseInt(v))).maxConnsPerHost());
    int min = live("connection.minConnsPerHost", Math.min(initial.minConnsPerHost(), max),
        Math.min(prev.minConnsPerHost(), max),
        v -> check(prev.toBuilder().minConnsPerHost(0).maxConnsPerHost(max).minConnsPerHost(Integer.parseInt(v)))
            .minConnsPerHost());
    b.minConnsPerHost(0).maxConnsPerHost(max).minConnsPerHost(min);
    b.maxTimeoutWhenExhausted(live("connection.maxTimeoutWhenExhausted", initial.maxTimeoutWhenExhausted(),
        prev.maxTimeoutWhenExhausted(), v -> check(prev.toBuilder().maxTimeoutWhenExhausted(millis(v))).maxTimeoutWhenExhausted()));
    b.maxFailoverCount(live("connection.maxFailoverCount", initial.maxFailoverCount(), prev.maxFailoverCount(),
        v -> check(prev.toBuilder().maxFailoverCount(Integer.parseInt(v))).maxFailoverCount()));
    b.retryPolicy(live("retryPolicy", initial.retryPolicy(), prev.retryPolicy(), RetryPolicy::parse));
    b.retryNonIdempotent(live("retryNonIdempotent", initial.retryNonIdempotent(), prev.retryNonIdempotent(),
        ArchaiusDynoConfig::bool));
    b.connectTimeout(live("connection.connectTimeout", initial.connectTimeout(), prev.connectTimeout(),
        v -> check(prev.toBuilder().connectTimeout(millis(v))).connectTimeout()));
    b.socketTimeout(live("connection.socketTimeout", initial.socketTimeout(), prev.socketTimeout(),
        v -> check(prev.toBuilder().socketTimeout(millis(v))).socketTimeout()));
    b.defaultConsistency(live("connection.consistency", initial.defaultConsistency(), prev.defaultConsistency(),
        v -> check(prev.toBuilder().defaultConsistency(v.isBlank() ? null : ConsistencyLevel.parse(v))).defaultConsistency()));
    b.requestDeadline(live("connection.requestDeadline", initial.requestDeadline(), prev.requestDeadline(),
        v -> check(prev.toBuilder().requestDeadline(v.isBlank() || v.equals("0") ? null : millis(v))).requestDeadline()));
    DynoConfig next;
    try {
      next = b.build();
    } catch (IllegalArgumentException e) {
      // Each value was checked alone against the previous config; this is a pair that disagrees.
      log.warn("ignoring Dyno property changes under {}* that contradict each other: {}", prefix, e.getMessage());
      return;
    }
    if (!next.equals(current)) {
      log.info("Dyno configuration of '{}' changed: {}", initial.applicationName(), next.describe());
      current = next;
    }
  }

  private static DynoConfig check(DynoConfig.Builder b) {
    return b.build();
  }

  /**
   * One live property: absent → {@code atStart}; valid → its value; invalid → {@code previous},
   * with one WARN naming the property and the value (not repeated while the value stays).
   */
  private <T> T live(String suffix, T atStart, T previous, java.util.function.Function<String, T> parse) {
    String raw = string(suffix);
    if (raw == null) {
      reportedBad.remove(suffix);
      return atStart;
    }
    try {
      T v = parse.apply(raw.trim());
      reportedBad.remove(suffix);
      return v;
    } catch (RuntimeException e) {
      if (!raw.equals(reportedBad.put(suffix, raw))) {
        log.warn("ignoring property {}{} = \"{}\" ({}); keeping {}", prefix, suffix, raw, e.getMessage(), previous);
      }
      return previous;
    }
  }

  /** Every property, strictly: a bad value fails with the property's name and value. */
  private DynoConfig read(DynoConfig base) {
    DynoConfig.Builder b = base.toBuilder();
    // min before max could fail transiently; set max first with min relaxed, then min
    Integer min = integer("connection.minConnsPerHost");
    Integer max = integer("connection.maxConnsPerHost");
    if (max != null) {
      try {
        b.minConnsPerHost(0).maxConnsPerHost(max).minConnsPerHost(Math.min(base.minConnsPerHost(), max));
      } catch (IllegalArgumentException e) { // found by ArchaiusConfigFuzzTest: named the setting, not the property
        throw new IllegalArgumentException("property " + prefix + "connection.maxConnsPerHost = \"" + max
            + "\" is invalid: " + e.getMessage(), e);
      }
    }
    if (min != null) {
      try {
        b.minConnsPerHost(min);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("property " + prefix + "connection.minConnsPerHost = \"" + min
            + "\" is invalid: " + e.getMessage(), e);
      }
    }
    apply("connection.maxTimeoutWhenExhausted", v -> b.maxTimeoutWhenExhausted(millis(v)));
    apply("connection.maxFailoverCount", v -> b.maxFailoverCount(Integer.parseInt(v)));
    apply("connection.connectTimeout", v -> b.connectTimeout(millis(v)));
    apply("connection.socketTimeout", v -> b.socketTimeout(millis(v)));
    apply("connection.localZoneAffinity", v -> b.localZoneAffinity(bool(v)));
    apply("connection.consistency", v -> b.defaultConsistency(v.isBlank() ? null : ConsistencyLevel.parse(v)));
    apply("connection.requestDeadline", v -> b.requestDeadline(v.isBlank() || v.equals("0") ? null : millis(v)));
    apply("connection.connectToDatastore", v -> b.datastoreMode(bool(v)));
    apply("connection.idleTimeout", v -> b.idleTimeout(millis(v)));
    apply("connection.keepAliveInterval", v -> b.keepAliveInterval(millis(v)));
    apply("lbStrategy", v -> b.lbStrategy(v));
    apply("retryPolicy", v -> b.retryPolicy(RetryPolicy.parse(v)));
    apply("retryNonIdempotent", v -> b.retryNonIdempotent(bool(v)));
    apply("compressionStrategy", v -> b.compressionStrategy(CompressionStrategy.parse(v)));
    apply("config.compressionThreshold", v -> b.compressionThreshold(Integer.parseInt(v)));
    apply("config.startup.failIfNoHosts", v -> b.failOnStartupIfNoHosts(bool(v)));
    apply("health.errorThreshold", v -> b.healthErrorThreshold(Double.parseDouble(v)));
    apply("health.halfLife", v -> b.healthHalfLife(millis(v)));
    apply("health.coolDown", v -> b.healthCoolDown(millis(v)));
    apply("health.maxCoolDown", v -> b.healthMaxCoolDown(millis(v)));
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Dyno properties " + prefix + "*: " + e.getMessage(), e);
    }
  }

  private interface Setter {
    void set(String value);
  }

  private void apply(String suffix, Setter setter) {
    String v = string(suffix);
    if (v == null) {
      return;
    }
    try {
      setter.set(v.trim());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("property " + prefix + suffix + " = \"" + v + "\" is invalid: "
          + e.getMessage(), e);
    }
  }

  private Integer integer(String suffix) {
    String v = string(suffix);
    if (v == null) {
      return null;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("property " + prefix + suffix + " = \"" + v + "\" is not an integer", e);
    }
  }

  private String string(String suffix) {
    Object raw = archaius.getRawProperty(prefix + suffix);
    return raw == null ? null : String.valueOf(raw);
  }

  private static Duration millis(String v) {
    return Duration.ofMillis(Long.parseLong(v));
  }

  private static boolean bool(String v) {
    if (v.equalsIgnoreCase("true")) return true;
    if (v.equalsIgnoreCase("false")) return false;
    throw new IllegalArgumentException("expected true or false");
  }

  /** Stops following Archaius changes. Idempotent. */
  @Override
  public void close() {
    archaius.removeListener(listener);
  }
}
