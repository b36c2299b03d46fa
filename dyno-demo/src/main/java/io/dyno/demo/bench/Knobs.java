package io.dyno.demo.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The settings of a running bench that may change while it runs ({@link BenchConfig#RUNTIME_SETTINGS}):
 * rate limits, read percentage and pipeline size range. Changes come from the control endpoint, a
 * watched properties file, or the auto-tuner; each is validated, applied at once and announced.
 */
public final class Knobs {
  private volatile double readRate;
  private volatile double writeRate;
  private volatile int readPercent;
  private volatile int pipelineMin;
  private volatile int pipelineMax;
  private final CopyOnWriteArrayList<Consumer<Knobs>> listeners = new CopyOnWriteArrayList<>();

  public Knobs(BenchConfig c) {
    readRate = c.readRate;
    writeRate = c.writeRate;
    readPercent = c.readPercent;
    pipelineMin = c.pipelineMin;
    pipelineMax = c.pipelineMax;
  }

  public double readRate() { return readRate; }
  public double writeRate() { return writeRate; }
  public int readPercent() { return readPercent; }
  public int pipelineMin() { return pipelineMin; }
  public int pipelineMax() { return pipelineMax; }

  public void onChange(Consumer<Knobs> listener) {
    listeners.add(listener);
  }

  /**
   * Applies one runtime setting by name; returns true when the value changed. Unknown names and
   * settings that cannot change at runtime are refused with an error naming them.
   */
  public boolean set(String name, String value) {
    if (!BenchConfig.RUNTIME_SETTINGS.contains(name)) {
      throw new IllegalArgumentException("setting " + name + " cannot change while the bench runs; runtime settings: "
          + BenchConfig.RUNTIME_SETTINGS);
    }
    String v = value.trim();
    boolean changed;
    synchronized (this) {
      switch (name) {
        case "readRate" -> {
          double r = BenchConfig.parseDouble(name, v);
          BenchConfig.require(r >= 0, name, "must be >= 0 (0 = unlimited), was " + v);
          changed = r != readRate;
          readRate = r;
        }
        case "writeRate" -> {
          double r = BenchConfig.parseDouble(name, v);
          BenchConfig.require(r >= 0, name, "must be >= 0 (0 = unlimited), was " + v);
          changed = r != writeRate;
          writeRate = r;
        }
        case "readPercent" -> {
          int p = (int) BenchConfig.parseLong(name, v);
          BenchConfig.require(p >= 0 && p <= 100, name, "must be 0..100, was " + v);
          changed = p != readPercent;
          readPercent = p;
        }
        case "pipelineMin" -> {
          int p = (int) BenchConfig.parseLong(name, v);
          BenchConfig.checkPipeline(p, Math.max(p, pipelineMax));
          changed = p != pipelineMin;
          pipelineMin = p;
          pipelineMax = Math.max(p, pipelineMax);
        }
        default -> { // pipelineMax
          int p = (int) BenchConfig.parseLong(name, v);
          BenchConfig.checkPipeline(Math.min(pipelineMin, p), p);
          changed = p != pipelineMax;
          pipelineMax = p;
          pipelineMin = Math.min(pipelineMin, p);
        }
      }
    }
    if (changed) {
      for (Consumer<Knobs> l : listeners) {
        l.accept(this);
      }
    }
    return changed;
  }

  public void setReadRate(double r) { set("readRate", Double.toString(r)); }
  public void setWriteRate(double r) { set("writeRate", Double.toString(r)); }

  public Map<String, String> asMap() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("readRate", BenchConfig.fmtRate(readRate));
    m.put("writeRate", BenchConfig.fmtRate(writeRate));
    m.put("readPercent", Integer.toString(readPercent));
    m.put("pipelineMin", Integer.toString(pipelineMin));
    m.put("pipelineMax", Integer.toString(pipelineMax));
    return m;
  }
}
