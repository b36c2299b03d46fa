package io.dyno.loadgen.bench;

import static io.dyno.loadgen.bench.SettingValues.parseBool;
import static io.dyno.loadgen.bench.SettingValues.parseDouble;
import static io.dyno.loadgen.bench.SettingValues.parseDurationOrEndless;
import static io.dyno.loadgen.bench.SettingValues.parseInt;
import static io.dyno.loadgen.bench.SettingValues.parseLong;

import io.dyno.core.ConsistencyLevel;
import java.util.Locale;

/**
 * One {@link BenchConfig} setting given by name and text (command line, properties file, control
 * endpoint), applied to a builder. Besides the names of {@link BenchConfig#asMap()}, {@code
 * pipeline} takes {@code N} or {@code MIN-MAX}, as {@code valueSize} does.
 */
final class NamedSetting {
  private NamedSetting() {}

  static void apply(BenchConfig.Builder b, String name, String value) {
    String v = value == null ? "" : value.trim();
    switch (name) {
      case "keys" -> b.keys(parseLong(name, v));
      case "valueSize" -> {
        int dash = v.indexOf('-');
        if (dash > 0) {
          b.valueSize(parseInt(name, v.substring(0, dash)), parseInt(name, v.substring(dash + 1)));
        } else {
          int size = parseInt(name, v);
          b.valueSize(size, size);
        }
      }
      case "valueSizeMax" -> b.valueSizeMax(parseInt(name, v));
      case "readers" -> b.readers(parseInt(name, v));
      case "writers" -> b.writers(parseInt(name, v));
      case "threads" -> b.threads(parseInt(name, v));
      case "readPercent" -> b.readPercent(parseInt(name, v));
      case "readRate" -> b.readRate(parseDouble(name, v));
      case "writeRate" -> b.writeRate(parseDouble(name, v));
      case "distribution" -> b.distribution(distribution(value, v));
      case "zipfTheta" -> b.zipfTheta(parseDouble(name, v));
      case "hotKeysPercent" -> b.hotKeysPercent(parseDouble(name, v));
      case "hotAccessPercent" -> b.hotAccessPercent(parseDouble(name, v));
      case "windowSize" -> b.windowSize(parseLong(name, v));
      case "windowSlidePerSecond" -> b.windowSlidePerSecond(parseLong(name, v));
      case "backfill" -> b.backfill(parseBool(name, v));
      case "backfillThreads" -> b.backfillThreads(parseInt(name, v));
      case "duration" -> b.duration(parseDurationOrEndless(name, v));
      case "pipeline" -> {
        int dash = v.indexOf('-');
        b.pipeline(
            parseInt(name, dash > 0 ? v.substring(0, dash) : v),
            parseInt(name, dash > 0 ? v.substring(dash + 1) : v));
      }
      case "pipelineMin" -> b.pipelineMin(parseInt(name, v));
      case "pipelineMax" -> b.pipelineMax(parseInt(name, v));
      case "consistency" -> {
        try {
          b.consistency(ConsistencyLevel.parse(v));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("setting consistency: " + e.getMessage());
        }
      }
      case "keyPrefix" -> b.keyPrefix(v);
      case "async" -> b.async(parseInt(name, v));
      case "virtualThreads" -> b.virtualThreads(parseInt(name, v));
      case "hedge" -> b.hedge(v.isEmpty() ? "off" : v);
      case "deadline" -> b.deadline(parseDurationOrEndless(name, v));
      case "muxConnections" -> b.muxConnections(parseInt(name, v));
      case "muxWrites" -> b.muxWrites(v.equalsIgnoreCase("default") ? -1 : parseInt(name, v));
      case "connections" -> b.connections(parseInt(name, v));
      case "tracing" -> b.tracing(TracingMode.parse(v));
      default ->
        throw new IllegalArgumentException("unknown bench setting \"" + name + "\"; known: "
            + String.join(", ", BenchConfig.builder().build().asMap().keySet()) + ", pipeline");
    }
  }

  private static KeyDistribution distribution(String value, String v) {
    try {
      return KeyDistribution.valueOf(v.toUpperCase(Locale.ROOT).replace('-', '_'));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("setting distribution: \"" + value
          + "\" is not one of uniform, zipfian, hot_set, sliding_window");
    }
  }
}
