package io.dyno.loadgen.bench;

import io.dyno.core.ConsistencyLevel;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The settings of a running bench that may change while it runs ({@link BenchConfig#RUNTIME_SETTINGS}):
 * rates, read percentage, pipeline size, thread counts, key distribution, value sizes and
 * consistency. Changes come from the console and its REST calls, a watched properties file, a
 * coordinator, or the auto-tuner. Each change is validated as a whole configuration (the same
 * rules as the command line), may be vetoed (e.g. a driver without consistency levels), then
 * applied at once and announced to the listeners.
 */
public final class Knobs {
  private static final Set<String> KEY_SETTINGS = Set.of(
      "distribution",
      "zipfTheta",
      "hotKeysPercent",
      "hotAccessPercent",
      "windowSize",
      "windowSlidePerSecond");

  private volatile BenchConfig config;
  private volatile KeyChooser keyChooser;
  private volatile ValueSource values;
  private final CopyOnWriteArrayList<Consumer<Knobs>> listeners = new CopyOnWriteArrayList<>();
  private final CopyOnWriteArrayList<Consumer<BenchConfig>> vetoes = new CopyOnWriteArrayList<>();

  public Knobs(BenchConfig c) {
    config = c;
    keyChooser = new KeyChooser(c);
    values = new ValueSource(c.valueSize, c.valueSizeMax);
  }

  public BenchConfig config() {
    return config;
  }

  public double readRate() {
    return config.readRate;
  }

  public double writeRate() {
    return config.writeRate;
  }

  public int readPercent() {
    return config.readPercent;
  }

  public int pipelineMin() {
    return config.pipelineMin;
  }

  public int pipelineMax() {
    return config.pipelineMax;
  }

  public ConsistencyLevel consistency() {
    return config.consistency;
  }

  KeyChooser keyChooser() {
    return keyChooser;
  }

  ValueSource values() {
    return values;
  }

  public void onChange(Consumer<Knobs> listener) {
    listeners.add(listener);
  }

  /** Registers a check run on the would-be configuration before a change applies; it throws IllegalArgumentException to refuse. */
  public void veto(Consumer<BenchConfig> check) {
    vetoes.add(check);
  }

  /**
   * Applies one runtime setting by name; returns true when the value changed. Unknown names,
   * settings that cannot change at runtime and invalid values are refused with an error naming them.
   */
  public boolean set(String name, String value) {
    return setAll(Map.of(name, value));
  }

  /** Applies several settings at once (all or none); returns true when anything changed. */
  public boolean setAll(Map<String, String> settings) {
    BenchConfig before;
    BenchConfig after;
    synchronized (this) {
      before = config;
      BenchConfig.Builder b = before.toBuilder();
      for (Map.Entry<String, String> e : settings.entrySet()) {
        String name = e.getKey();
        if (!BenchConfig.RUNTIME_SETTINGS.contains(name)) {
          throw new IllegalArgumentException(
              "setting " + name + " cannot change while the bench runs; runtime settings: "
                  + BenchConfig.RUNTIME_SETTINGS);
        }
        String v = e.getValue() == null ? "" : e.getValue().trim();
        b.set(name, v);
        // A new minimum above the maximum raises the maximum, and the other way round (one knob
        // moved at a time).
        if (name.equals("pipelineMin") && !settings.containsKey("pipelineMax")) {
          long p = SettingValues.parseLong(name, v);
          if (p > before.pipelineMax) b.set("pipelineMax", v);
        } else if (name.equals("pipelineMax") && !settings.containsKey("pipelineMin")) {
          long p = SettingValues.parseLong(name, v);
          if (p < before.pipelineMin) b.set("pipelineMin", v);
        } else if (name.equals("valueSize")
            && !v.contains("-")
            && !settings.containsKey("valueSizeMax")) {
          b.set("valueSizeMax", v);
        }
      }
      after = b.build();
      for (Consumer<BenchConfig> v : vetoes) {
        v.accept(after);
      }
      if (after.asMap().equals(before.asMap())) {
        return false;
      }
      boolean keysChanged = KEY_SETTINGS.stream()
          .anyMatch(k -> !before.asMap().get(k).equals(after.asMap().get(k)));
      if (keysChanged) keyChooser = new KeyChooser(after);
      if (before.valueSize != after.valueSize || before.valueSizeMax != after.valueSizeMax) {
        values = new ValueSource(after.valueSize, after.valueSizeMax);
      }
      config = after;
    }
    for (Consumer<Knobs> l : listeners) {
      l.accept(this);
    }
    return true;
  }

  public void setReadRate(double r) {
    set("readRate", Double.toString(r));
  }

  public void setWriteRate(double r) {
    set("writeRate", Double.toString(r));
  }

  /** The runtime settings as name → text. */
  public Map<String, String> asMap() {
    Map<String, String> all = config.asMap();
    Map<String, String> m = new LinkedHashMap<>();
    for (String k : new String[] {
      "readRate",
      "writeRate",
      "readPercent",
      "pipelineMin",
      "pipelineMax",
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
      "consistency"
    }) {
      m.put(k, all.get(k));
    }
    return m;
  }
}
