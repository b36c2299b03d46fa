package io.dyno.loadgen.bench;

import static io.dyno.loadgen.bench.SettingValues.require;

import io.dyno.core.config.HedgePolicy;

/** What makes a {@link BenchConfig} valid: each rule names the setting at fault and its value. */
final class BenchConfigRules {
  private BenchConfigRules() {}

  /** Returns {@code c} when every rule holds; else throws for the first that does not. */
  static BenchConfig check(BenchConfig c) {
    require(c.keys >= 1, "keys", "must be >= 1, was " + c.keys);
    checkValues(c);
    checkCallers(c);
    checkKeyChoice(c);
    require(c.backfillThreads >= 1, "backfillThreads", "must be >= 1, was " + c.backfillThreads);
    require(
        c.duration != null && !c.duration.isNegative(),
        "duration",
        "must be positive, or 0/endless to run until stopped, was " + c.duration);
    checkPipeline(c.pipelineMin, c.pipelineMax);
    require(c.consistency != null, "consistency", "must be set");
    require(c.keyPrefix != null, "keyPrefix", "must not be null");
    checkCallModes(c);
    checkDriverOptions(c);
    return c;
  }

  static void checkPipeline(int min, int max) {
    require(min >= 1, "pipelineMin", "must be >= 1, was " + min);
    require(max >= min, "pipelineMax", "must be >= pipelineMin " + min + ", was " + max);
    require(max <= 10_000, "pipelineMax", "must be <= 10000, was " + max);
  }

  private static void checkValues(BenchConfig c) {
    require(c.valueSize >= 1, "valueSize", "must be >= 1, was " + c.valueSize);
    require(
        c.valueSizeMax >= c.valueSize,
        "valueSizeMax",
        "must be >= valueSize " + c.valueSize + ", was " + c.valueSizeMax);
    require(
        c.valueSizeMax <= 64 * 1024 * 1024,
        "valueSizeMax",
        "must be <= 64 MiB, was " + c.valueSizeMax);
  }

  private static void checkCallers(BenchConfig c) {
    require(c.readers >= 0, "readers", "must be >= 0, was " + c.readers);
    require(c.writers >= 0, "writers", "must be >= 0, was " + c.writers);
    require(c.threads >= 0, "threads", "must be >= 0, was " + c.threads);
    require(
        c.readers + c.writers + c.threads >= 1 || c.virtualThreads > 0,
        "readers/writers/threads",
        "at least one load thread is needed");
    require(
        c.readPercent >= 0 && c.readPercent <= 100,
        "readPercent",
        "must be 0..100, was " + c.readPercent);
    require(c.readRate >= 0, "readRate", "must be >= 0 (0 = unlimited), was " + c.readRate);
    require(c.writeRate >= 0, "writeRate", "must be >= 0 (0 = unlimited), was " + c.writeRate);
  }

  private static void checkKeyChoice(BenchConfig c) {
    require(
        c.zipfTheta > 0 && c.zipfTheta < 1, "zipfTheta", "must be in (0, 1), was " + c.zipfTheta);
    require(
        c.hotKeysPercent > 0 && c.hotKeysPercent <= 100,
        "hotKeysPercent",
        "must be in (0, 100], was " + c.hotKeysPercent);
    require(
        c.hotAccessPercent >= 0 && c.hotAccessPercent <= 100,
        "hotAccessPercent",
        "must be 0..100, was " + c.hotAccessPercent);
    require(c.windowSize >= 1, "windowSize", "must be >= 1, was " + c.windowSize);
    require(
        c.windowSlidePerSecond >= 0,
        "windowSlidePerSecond",
        "must be >= 0, was " + c.windowSlidePerSecond);
  }

  private static void checkCallModes(BenchConfig c) {
    require(
        c.async >= 0 && c.async <= 100_000,
        "async",
        "must be 0 (off) .. 100000 requests in flight, was " + c.async);
    require(
        c.async == 0 || c.pipelineMax <= 1,
        "async",
        "runs single commands; it does not combine with pipeline " + c.pipelineMin + "-"
            + c.pipelineMax);
    require(
        c.virtualThreads >= 0 && c.virtualThreads <= 1_000_000,
        "virtualThreads",
        "must be 0 (off) .. 1000000, was " + c.virtualThreads);
    require(
        c.virtualThreads == 0 || c.async == 0,
        "virtualThreads",
        "runs blocking callers; it does not combine with async");
  }

  private static void checkDriverOptions(BenchConfig c) {
    try {
      HedgePolicy.parse(c.hedge);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("setting hedge: " + e.getMessage());
    }
    require(
        c.deadline != null && !c.deadline.isNegative(), "deadline", "must be positive, or none");
    require(
        c.muxConnections >= 0 && c.muxConnections <= 64,
        "muxConnections",
        "must be 0 (default) .. 64, was " + c.muxConnections);
    require(
        c.muxWrites >= -1 && c.muxWrites <= 1024,
        "muxWrites",
        "must be default, or 0 (no bound) .. 1024, was " + c.muxWrites);
    require(
        c.connections >= 0 && c.connections <= 64,
        "connections",
        "must be 0 (default) .. 64, was " + c.connections);
  }
}
