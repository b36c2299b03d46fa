package io.dyno.loadgen;

import io.dyno.loadgen.bench.SettingValues;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tool's own options of a bench run (those that are no {@link io.dyno.loadgen.bench.BenchConfig}
 * setting), with their defaults; see {@link BenchOptionCatalog} for what each means.
 */
record RunOptions(
    String target,
    String backend,
    String serverCpus,
    int racks,
    int nodesPerRack,
    String mode,
    String driver,
    String compare,
    int rounds,
    Duration warmup,
    String autotune,
    String settingsFile,
    String controlPort,
    String coordinator,
    String instanceName,
    Path reportDir,
    String reportName,
    String poolSize,
    String fault,
    int keepSamples,
    Map<String, String> replication) {

  /** The options of {@code --mode replication}, passed on to {@link ReplicationDelay} as given. */
  private static final List<String> REPLICATION =
      List.of("write-rack", "iterations", "repl-keys", "repl-sample", "repl-bound", "repl-gap");

  static RunOptions of(Map<String, String> opts) {
    String mode = opts.getOrDefault("mode", "load");
    Map<String, String> repl = new LinkedHashMap<>();
    for (String k : REPLICATION) {
      String v = opts.get(k);
      if (v != null) repl.put(k, v);
    }
    RunOptions o = new RunOptions(
        opts.get("target"),
        opts.get("backend"),
        opts.get("server-cpus"),
        Integer.parseInt(opts.getOrDefault("racks", "3")),
        Integer.parseInt(opts.getOrDefault("nodes-per-rack", "2")),
        mode,
        opts.get("driver"),
        opts.get("compare"),
        Integer.parseInt(opts.getOrDefault("rounds", "1")),
        SettingValues.parseDuration("warmup", opts.getOrDefault("warmup", "0s")),
        opts.get("autotune"),
        opts.get("settings-file"),
        opts.get("control-port"),
        opts.get("coordinator"),
        opts.get("instance-name"),
        opts.containsKey("report-dir")
            ? Path.of(opts.get("report-dir"))
            : BenchOptionCatalog.DEFAULT_REPORT_DIR,
        opts.getOrDefault("report-name", "bench"),
        opts.get("pool-size"),
        opts.get("fault"),
        Integer.parseInt(opts.getOrDefault("keep-samples", "3600")),
        repl);
    if (!mode.equals("load") && !mode.equals("replication")) {
      throw new IllegalArgumentException("--mode " + mode + ": expected load or replication");
    }
    return o;
  }

  /** A comparison or an auto-tune run: those need a duration. */
  boolean needsDuration() {
    return compare != null || autotune != null;
  }

  /** The driver of a single run (default dyno). */
  String driverOrDefault() {
    return driver == null ? "dyno" : driver;
  }

  /** The name this instance registers under with a coordinator (default host-pid). */
  String instanceNameOrDefault() {
    if (instanceName != null) return instanceName;
    String host = System.getenv().getOrDefault("HOSTNAME", "host");
    return host + "-" + ProcessHandle.current().pid();
  }
}
