package io.dyno.core.config;

import com.netflix.archaius.api.Config;
import com.netflix.archaius.api.ConfigListener;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
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
public final class ArchaiusDynoConfig
    implements Supplier<DynoConfig>, DriverProperties, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ArchaiusDynoConfig.class);

  /** Property suffix (after {@code dyno.<app>.}) → DynoConfig setting. */
  public static final Map<String, String> PROPERTIES;

  static {
    Map<String, String> m = new LinkedHashMap<>();
    for (Setting<?> setting : Setting.ALL) {
      if (setting.property != null) {
        m.put(setting.property, setting.name);
      }
    }
    PROPERTIES = Collections.unmodifiableMap(m);
  }

  /**
   * Properties read by a driver module through {@link DriverProperties} (at its build), not by the
   * engine; with what reads them.
   */
  static final Map<String, String> DRIVER_ONLY = Map.of(
      "compressionStrategy", "dyno-jedis (value compression: NONE or THRESHOLD)",
      "config.compressionThreshold", "dyno-jedis (bytes above which values are compressed)",
      "connection.transport", "dyno-jedis (Pooled or Multiplexed)",
      "connection.muxConnectionsPerNode",
          "dyno-jedis (multiplexed transport: shared connections per node and level)",
      "connection.muxMaxInFlight",
          "dyno-jedis (multiplexed transport: requests in flight per connection)",
      "connection.muxMaxWritesInFlight",
          "dyno-jedis (multiplexed transport: writes awaiting replies per connection)",
      "connection.muxMaxBulkBytes",
          "dyno-jedis (multiplexed transport: largest bulk reply accepted)");

  /** Original Dyno properties that have no effect here (prefix match), with what to do instead. */
  static final Map<String, String> ORIGINAL_ONLY = Map.of(
      "dualwrite.",
          "dual writes are DynoJedisClientBuilder.shadowCluster(client, percent, queueCapacity)",
      "config.lock.votingSize", "dyno-recipes' QuorumLock is given its voters in code",
      "errorRateConfig", "node health decays by itself here (health.* properties)",
      "config.publisher.address", "there is no configuration phone-home",
      "connection.metrics.resetFrequencySeconds", "Spectator meters are never reset");

  private final Config archaius;
  private final List<String> unused = new ArrayList<>();
  private final String prefix;
  private final DynoConfig initial;
  private final ConfigListener listener;
  private volatile DynoConfig current;
  private final Map<String, String> reportedBad = new ConcurrentHashMap<>();

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
      @Override
      public void onConfigAdded(Config config) {
        refresh();
      }

      @Override
      public void onConfigRemoved(Config config) {
        refresh();
      }

      @Override
      public void onConfigUpdated(Config config) {
        refresh();
      }

      @Override
      public void onError(Throwable error, Config config) {}
    };
    archaius.addListener(listener);
  }

  /**
   * The properties under {@code dyno.<app>.} that this class does not read, each with the reason
   * (found at construction and logged once as a warning): settings of the original Dyno that have
   * no counterpart here, and names it does not know (typos).
   *
   * @return one line per property, naming it and the reason; unmodifiable
   */
  public List<String> unusedProperties() {
    return List.copyOf(unused);
  }

  private void findUnused() {
    Iterator<String> keys = archaius.getKeys(prefix);
    while (keys.hasNext()) {
      String key = keys.next();
      String suffix = key.startsWith(prefix) ? key.substring(prefix.length()) : key;
      if (PROPERTIES.containsKey(suffix) || DRIVER_ONLY.containsKey(suffix)) {
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
  public String driverProperty(String suffix) {
    return string(suffix);
  }

  @Override
  public String driverPropertyName(String suffix) {
    return prefix + suffix;
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
    DynoConfigBuilder b = initial.toBuilder();
    // The pool bounds are checked as a pair: max first (min relaxed), then min against the new max.
    int max = live(
        Setting.MAX_CONNS.property,
        initial.maxConnsPerHost(),
        prev.maxConnsPerHost(),
        v -> check(prev.toBuilder()
                .minConnsPerHost(0)
                .set(Setting.MAX_CONNS, Setting.MAX_CONNS.parse(v)))
            .maxConnsPerHost());
    int min = live(
        Setting.MIN_CONNS.property,
        Math.min(initial.minConnsPerHost(), max),
        Math.min(prev.minConnsPerHost(), max),
        v -> check(prev.toBuilder()
                .minConnsPerHost(0)
                .maxConnsPerHost(max)
                .set(Setting.MIN_CONNS, Setting.MIN_CONNS.parse(v)))
            .minConnsPerHost());
    b.minConnsPerHost(0).maxConnsPerHost(max).minConnsPerHost(min);
    for (Setting<?> s : Setting.ALL) {
      if (s.live != Setting.Live.NO
          && s.property != null
          && s != Setting.MIN_CONNS
          && s != Setting.MAX_CONNS) {
        refreshOne(b, prev, s);
      }
    }
    DynoConfig next;
    try {
      next = b.build();
    } catch (IllegalArgumentException e) {
      // Each value was checked alone against the previous config; this is a pair that disagrees.
      log.warn(
          "ignoring Dyno property changes under {}* that contradict each other: {}",
          prefix,
          e.getMessage());
      return;
    }
    if (!next.equals(current)) {
      log.info(
          "Dyno configuration of '{}' changed: {}", initial.applicationName(), next.describe());
      current = next;
    }
  }

  /** One live setting, its new value checked against the previous config as a whole. */
  private <T> void refreshOne(DynoConfigBuilder b, DynoConfig prev, Setting<T> s) {
    b.set(
        s,
        live(
            s.property,
            initial.get(s),
            prev.get(s),
            v -> check(prev.toBuilder().set(s, s.parse(v))).get(s)));
  }

  private static DynoConfig check(DynoConfigBuilder b) {
    return b.build();
  }

  /**
   * One live property: absent → {@code atStart}; valid → its value; invalid → {@code previous},
   * with one WARN naming the property and the value (not repeated while the value stays).
   */
  private <T> T live(String suffix, T atStart, T previous, Function<String, T> parse) {
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
        log.warn(
            "ignoring property {}{} = \"{}\" ({}); keeping {}",
            prefix,
            suffix,
            raw,
            e.getMessage(),
            previous);
      }
      return previous;
    }
  }

  /** Every property, strictly: a bad value fails with the property's name and value. */
  private DynoConfig read(DynoConfig base) {
    DynoConfigBuilder b = base.toBuilder();
    for (Setting<?> s : Setting.ALL) {
      if (s.property != null) {
        readOne(b, s);
      }
    }
    // A maximum below the base's minimum lowers the minimum, unless the minimum is set too.
    if (string(Setting.MAX_CONNS.property) != null && string(Setting.MIN_CONNS.property) == null) {
      b.minConnsPerHost(Math.min(base.minConnsPerHost(), b.get(Setting.MAX_CONNS)));
    }
    try {
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Dyno properties " + prefix + "*: " + e.getMessage(), e);
    }
  }

  private <T> void readOne(DynoConfigBuilder b, Setting<T> s) {
    String v = string(s.property);
    if (v == null) {
      return;
    }
    try {
      b.set(s, s.parse(v.trim()));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "property " + prefix + s.property + " = \"" + v + "\" is invalid: " + e.getMessage(), e);
    }
  }

  private String string(String suffix) {
    Object raw = archaius.getRawProperty(prefix + suffix);
    return raw == null ? null : String.valueOf(raw);
  }

  /** Stops following Archaius changes. Idempotent. */
  @Override
  public void close() {
    archaius.removeListener(listener);
  }
}
