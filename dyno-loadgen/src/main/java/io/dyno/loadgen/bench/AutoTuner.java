package io.dyno.loadgen.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Raises a running bench's total rate step by step until the latency SLA or the error budget is
 * broken (or the cluster cannot deliver the asked rate), then backs off to the last good rate,
 * confirms it for one more step and ends the run. Attach with {@link #attach(Bench)} before
 * {@link Bench#run()}; read {@link #steps()} and {@link #sustainableRate()} afterwards.
 *
 * <p>A step is judged on its samples after the first (which still carries the previous rate):
 * the worst p99 against the SLA, errors / (ops + errors) against the budget, and achieved
 * throughput against 90% of the target.
 */
public final class AutoTuner {
  /** One step's verdict. */
  public record Step(
      double targetRate,
      double achievedRate,
      long p99Micros,
      double errorRate,
      boolean ok,
      String verdict) {}

  private final double startRate;
  private final double factor;
  private final int samplesPerStep;
  private final long slaP99Micros;
  private final double errorBudget;
  private final Consumer<String> log;
  private final List<Step> steps = new ArrayList<>();
  private final List<Sample> inStep = new ArrayList<>();
  private Bench bench;
  private double rate;
  private double bestRate = 0;
  private boolean confirming;
  private volatile boolean done;

  /**
   * From {@code --autotune start=2000,factor=1.5,step=4,sla=5ms,errors=0.001} (each optional; those
   * are the defaults but start, 1000).
   */
  public static AutoTuner parse(String spec, Consumer<String> log) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String kv : spec.split(",")) {
      int eq = kv.indexOf('=');
      if (eq <= 0)
        throw new IllegalArgumentException("--autotune: expected name=value, got \"" + kv + "\"");
      m.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
    }
    double start = Double.parseDouble(m.getOrDefault("start", "1000"));
    double factor = Double.parseDouble(m.getOrDefault("factor", "1.5"));
    int step = Integer.parseInt(m.getOrDefault("step", "4"));
    long sla = SettingValues.parseDuration("autotune.sla", m.getOrDefault("sla", "5ms"))
            .toNanos()
        / 1000;
    double errors = Double.parseDouble(m.getOrDefault("errors", "0.001"));
    return new AutoTuner(start, factor, step, sla, errors, log);
  }

  /**
   * @param startRate first total rate, ops/s
   * @param factor multiply the rate by this after a good step (e.g. 1.5)
   * @param samplesPerStep progress samples per step (about seconds), at least 2
   * @param slaP99Micros the p99 latency SLA
   * @param errorBudget the highest acceptable error fraction (e.g. 0.001)
   */
  public AutoTuner(
      double startRate,
      double factor,
      int samplesPerStep,
      long slaP99Micros,
      double errorBudget,
      Consumer<String> log) {
    SettingValues.require(startRate > 0, "autotune.startRate", "must be > 0, was " + startRate);
    SettingValues.require(factor > 1, "autotune.factor", "must be > 1, was " + factor);
    SettingValues.require(
        samplesPerStep >= 2, "autotune.stepSeconds", "must be >= 2, was " + samplesPerStep);
    SettingValues.require(slaP99Micros > 0, "autotune.slaP99", "must be > 0");
    SettingValues.require(
        errorBudget >= 0 && errorBudget < 1,
        "autotune.errorBudget",
        "must be in [0, 1), was " + errorBudget);
    this.startRate = startRate;
    this.factor = factor;
    this.samplesPerStep = samplesPerStep;
    this.slaP99Micros = slaP99Micros;
    this.errorBudget = errorBudget;
    this.log = log;
  }

  public AutoTuner attach(Bench b) {
    this.bench = b;
    b.onSample(this::onSample);
    apply(startRate);
    return this;
  }

  private void apply(double total) {
    rate = total;
    int readPct = bench.knobs().readPercent();
    BenchConfig c = bench.config();
    double reads;
    double writes;
    if (c.threads > 0 && c.readers == 0 && c.writers == 0) {
      reads = total * readPct / 100.0;
      writes = total - reads;
    } else { // reader/writer threads: split by thread counts
      int rw = c.readers + c.writers + c.threads;
      reads = total * (c.readers + c.threads * readPct / 100.0) / rw;
      writes = total - reads;
    }
    bench.knobs().set("readRate", Double.toString(Math.max(1, Math.round(reads))));
    bench.knobs().set("writeRate", Double.toString(Math.max(1, Math.round(writes))));
    log.accept(String.format(
        "[autotune] %s rate %.0f ops/s", confirming ? "confirming" : "trying", total));
  }

  private void onSample(Sample s) {
    if (done) return;
    inStep.add(s);
    if (inStep.size() < samplesPerStep) return;
    List<Sample> judged = inStep.subList(1, inStep.size());
    long ops = judged.stream().mapToLong(Sample::ops).sum();
    long errors = judged.stream().mapToLong(Sample::errors).sum();
    double secs = judged.stream().mapToDouble(Sample::seconds).sum();
    long p99 = judged.stream().mapToLong(Sample::p99Micros).max().orElse(0);
    double achieved = secs <= 0 ? 0 : ops / secs;
    double errRate = ops + errors == 0 ? 0 : (double) errors / (ops + errors);
    String verdict;
    boolean ok;
    if (p99 > slaP99Micros) {
      ok = false;
      verdict = "p99 " + Sample.ms(p99) + " > SLA " + Sample.ms(slaP99Micros);
    } else if (errRate > errorBudget) {
      ok = false;
      verdict = String.format("errors %.3f%% > budget %.3f%%", errRate * 100, errorBudget * 100);
    } else if (achieved < 0.9 * rate) {
      ok = false;
      verdict = String.format("achieved %.0f < 90%% of %.0f", achieved, rate);
    } else {
      ok = true;
      verdict = "ok";
    }
    steps.add(new Step(rate, achieved, p99, errRate, ok, verdict));
    log.accept(String.format(
        "[autotune] step %.0f ops/s: achieved %.0f, p99 %s, errors %.3f%% -> %s",
        rate, achieved, Sample.ms(p99), errRate * 100, verdict));
    inStep.clear();
    if (confirming) {
      done = true;
      if (!ok)
        bestRate =
            0; // the back-off rate did not hold either: report nothing sustainable found above it
      log.accept(
          String.format("[autotune] highest sustainable rate: %.0f ops/s", sustainableRate()));
      bench.stop();
      return;
    }
    if (ok) {
      bestRate = rate;
      apply(rate * factor);
    } else {
      confirming = true;
      apply(bestRate > 0 ? bestRate : rate / factor);
      if (bestRate == 0) bestRate = rate / factor;
    }
  }

  public boolean finished() {
    return done;
  }

  public List<Step> steps() {
    return List.copyOf(steps);
  }

  /** The highest rate that held, confirmed after the back-off; 0 when none held. */
  public double sustainableRate() {
    return bestRate;
  }
}
