package io.dyno.demo;

import io.dyno.companion.Backend;
import io.dyno.demo.bench.AutoTuner;
import io.dyno.demo.bench.Bench;
import io.dyno.demo.bench.BenchConfig;
import io.dyno.demo.bench.BenchResult;
import io.dyno.demo.bench.ControlServer;
import io.dyno.demo.bench.Driver;
import io.dyno.demo.bench.Report;
import io.dyno.demo.bench.SettingsFileWatcher;
import io.dyno.demo.drivers.Drivers;
import io.dyno.demo.target.DynomiteTarget;
import io.dyno.demo.target.EmbeddedTarget;
import io.dyno.demo.target.Target;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The load generator's command line. Examples:
 * <pre>
 *   bench --driver dyno --duration 60s --threads 40 --readPercent 80 --keys 100000 --valueSize 1024
 *   bench --target dynomite --compare jedis-pools,lettuce,dyno,dyno:pipeline=3-10 --rounds 3 --warmup 5s
 *   bench --target companion --compare dyno,jedis-pools,lettuce,dyno:pipeline=3-10,redis-benchmark --backend redis
 *   bench --driver jedis-pools --autotune start=2000,factor=1.5,step=4,sla=5ms,errors=0.001
 *   bench --target nodes:127.0.0.1:8102:rack1:0,... --settings-file bench.properties --control-port 0
 * </pre>
 * Targets ({@code --target}): {@code dynomite} (real Dynomite processes, {@link DynomiteTarget}; with
 * {@code --server-cpus 1} its processes are pinned there with taskset), {@code companion} (the embedded
 * companion cluster, {@code --backend redis|memory}), {@code auto} (the default: dynomite when its
 * binary and redis-server are found and no {@code --backend memory} was asked for, else companion),
 * {@code describe:<url>}, {@code nodes:<host:port:rack:token>,...}. Comparisons: {@code --rounds N}
 * interleaved rounds, {@code --warmup 5s} per variant per round.
 * Every {@link BenchConfig} setting is an option ({@code --name value}). Reports go to
 * {@code --report-dir} (default {@code bench-reports}) as {@code <report-name>.json/.html}.
 */
public final class BenchMain {
  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out));
  }

  /** Runs the command line; returns the exit code. */
  public static int run(String[] args, PrintStream stdout) throws Exception {
    Map<String, String> opts = parse(args);
    Consumer<String> out = line -> {
      synchronized (stdout) {
        stdout.println(line);
        stdout.flush();
      }
    };
    String targetSpec = opts.remove("target");
    String serverAlias = opts.remove("server");
    if (targetSpec == null) targetSpec = serverAlias;
    String backendName = opts.remove("backend");
    String serverCpus = opts.remove("server-cpus");
    int rounds = Integer.parseInt(opts.getOrDefault("rounds", "1"));
    opts.remove("rounds");
    Duration warmup = BenchConfig.parseDuration("warmup", opts.getOrDefault("warmup", "0s"));
    opts.remove("warmup");
    int racks = Integer.parseInt(opts.getOrDefault("racks", "3"));
    opts.remove("racks");
    int perRack = Integer.parseInt(opts.getOrDefault("nodes-per-rack", "2"));
    opts.remove("nodes-per-rack");
    String driverName = opts.remove("driver");
    String compare = opts.remove("compare");
    String autotune = opts.remove("autotune");
    String settingsFile = opts.remove("settings-file");
    String controlPort = opts.remove("control-port");
    Path reportDir = Path.of(opts.getOrDefault("report-dir", "bench-reports"));
    opts.remove("report-dir");
    String reportName = opts.getOrDefault("report-name", "bench");
    opts.remove("report-name");
    String conns = opts.remove("conns");

    BenchConfig.Builder b = BenchConfig.builder();
    opts.forEach(b::set);
    BenchConfig config = b.build();
    int connsPerNode = conns != null ? Integer.parseInt(conns) : Math.max(8, config.readers + config.writers + config.threads);

    try (Target target = openTarget(targetSpec, backendName, racks, perRack, serverCpus)) {
      out.accept("target: " + target.describe());
      target.hosts().forEach(h -> out.accept("  node " + h));
      Report report = new Report("Dyno bench: " + (compare != null ? "comparison" : driverName == null ? "dyno" : driverName)
          + " on " + target.describe());
      report.put("method", method(config, target));
      if (compare != null) {
        Comparison c = new Comparison(target, config, connsPerNode, out).rounds(rounds).warmup(warmup);
        report.put("comparisonMethod", c.method());
        c.run(Arrays.asList(compare.split(",")));
        c.results().forEach(report::add);
        report.put("comparison", c.rows());
        if (!c.redisBenchmark().isEmpty()) report.put("redisBenchmark", c.redisBenchmark());
      } else {
        String name = driverName == null ? "dyno" : driverName;
        try (Driver d = Drivers.create(name, target, config.consistency, connsPerNode, Duration.ofSeconds(2))) {
          Bench bench = new Bench(config, d, out).warmup(warmup).targetName(target.describe())
              .serverCounters(target.serverCounters(), target.noServerCountersReason());
          AutoTuner tuner = autotune == null ? null : autoTuner(autotune, out).attach(bench);
          try (ControlServer control = controlPort == null ? null : new ControlServer(bench.knobs(), Integer.parseInt(controlPort));
               SettingsFileWatcher watcher = settingsFile == null ? null
                   : new SettingsFileWatcher(Path.of(settingsFile), Duration.ofMillis(500), bench.knobs(), out)) {
            if (control != null) out.accept("control endpoint: " + control.url() + "/settings, " + control.url() + "/set?readRate=N");
            if (watcher != null) out.accept("watching settings file " + settingsFile + " (runtime settings: " + BenchConfig.RUNTIME_SETTINGS + ")");
            BenchResult r = bench.run();
            out.accept(r.summaryText());
            report.add(r);
          }
          if (tuner != null) {
            report.put("autotune", tuner.steps());
            report.put("autotuneSustainableRate", tuner.sustainableRate());
            out.accept(String.format("auto-tune: highest sustainable rate %.0f ops/s", tuner.sustainableRate()));
          }
        }
      }
      List<Path> files = report.write(reportDir, reportName);
      out.accept("report: " + files.get(0).toAbsolutePath() + " and " + files.get(1).toAbsolutePath());
    }
    return 0;
  }

  static Target openTarget(String spec, String backend, int racks, int perRack, String serverCpus) {
    String s = spec == null ? "auto" : spec;
    if (s.equals("auto")) {
      boolean memory = backend != null && backend.equalsIgnoreCase("memory");
      s = !memory && DynomiteTarget.binary().isPresent() && EmbeddedTarget.redisOnPath() ? "dynomite" : "companion";
    }
    if (serverCpus != null && !s.equals("dynomite")) {
      throw new IllegalArgumentException("--server-cpus " + serverCpus + " needs --target dynomite (the companion runs in this JVM; "
          + "pin the whole JVM with taskset instead), target was " + s);
    }
    if (s.equals("dynomite")) {
      if (backend != null && !backend.equalsIgnoreCase("redis") && !backend.equalsIgnoreCase("auto")) {
        throw new IllegalArgumentException("--backend " + backend + ": real Dynomite always runs in front of redis-server");
      }
      return DynomiteTarget.start(racks, perRack, serverCpus);
    }
    if (s.equals("companion") || s.equals("embedded")) {
      Backend b = backend == null || backend.equals("auto") ? null : Backend.valueOf(backend.toUpperCase(Locale.ROOT));
      return EmbeddedTarget.start(racks, perRack, b);
    }
    return Target.parse(s);
  }

  static AutoTuner autoTuner(String spec, Consumer<String> out) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String kv : spec.split(",")) {
      int eq = kv.indexOf('=');
      if (eq <= 0) throw new IllegalArgumentException("--autotune: expected name=value, got \"" + kv + "\"");
      m.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
    }
    double start = Double.parseDouble(m.getOrDefault("start", "1000"));
    double factor = Double.parseDouble(m.getOrDefault("factor", "1.5"));
    int step = Integer.parseInt(m.getOrDefault("step", "4"));
    long sla = BenchConfig.parseDuration("autotune.sla", m.getOrDefault("sla", "5ms")).toNanos() / 1000;
    double errors = Double.parseDouble(m.getOrDefault("errors", "0.001"));
    return new AutoTuner(start, factor, step, sla, errors, out);
  }

  /** The method, written out beside the numbers (instance, threads, payload, keys, ratio, run length). */
  static Map<String, Object> method(BenchConfig c, Target t) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("instance", Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("os.name") + " "
        + System.getProperty("os.arch") + ", Java " + Runtime.version() + ", one machine, loopback, shared with other builds");
    m.put("cluster", t.describe());
    m.put("threads", c.readers + " readers, " + c.writers + " writers, " + c.threads + " mixed");
    m.put("payload", c.valueSize == c.valueSizeMax ? c.valueSize + " bytes" : c.valueSize + ".." + c.valueSizeMax + " bytes");
    m.put("keys", c.keys + " (" + c.distribution.name().toLowerCase() + ")");
    m.put("readWriteRatio", c.threads > 0 ? c.readPercent + "% GET / " + (100 - c.readPercent) + "% SET" : "reader/writer threads");
    m.put("runLength", c.duration.toMillis() / 1000.0 + " s measured per run, after one backfill");
    m.put("pipeline", c.pipelined() ? c.pipelineMin + ".." + c.pipelineMax + " commands" : "none");
    m.put("consistency", c.consistency.name());
    return m;
  }

  static Map<String, String> parse(String[] args) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument \"" + a + "\": options are --name value");
      }
      String name = a.substring(2);
      int eq = name.indexOf('=');
      if (eq > 0) {
        m.put(name.substring(0, eq), name.substring(eq + 1));
      } else {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("option --" + name + " needs a value");
        }
        m.put(name, args[++i]);
      }
    }
    return m;
  }
}
