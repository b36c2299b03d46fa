package io.dyno.loadgen;

import io.dyno.companion.Backend;
import io.dyno.loadgen.bench.AutoTuner;
import io.dyno.loadgen.bench.Bench;
import io.dyno.loadgen.bench.BenchConfig;
import io.dyno.loadgen.bench.BenchResult;
import io.dyno.loadgen.bench.Callers;
import io.dyno.loadgen.bench.ClientCpu;
import io.dyno.loadgen.bench.ControlServer;
import io.dyno.loadgen.bench.Driver;
import io.dyno.loadgen.bench.Report;
import io.dyno.loadgen.bench.SettingValues;
import io.dyno.loadgen.bench.SettingsFileWatcher;
import io.dyno.loadgen.drivers.Drivers;
import io.dyno.loadgen.drivers.DynoDriver;
import io.dyno.loadgen.target.DynomiteTarget;
import io.dyno.loadgen.target.EmbeddedTarget;
import io.dyno.loadgen.target.Target;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The load generator's command line (picocli; {@code --help} lists every option). Examples:
 * <pre>
 *   bench --driver dyno --threads 40 --read-percent 80 --keys 100000 --value-size 1024 --control-port 8080
 *       (no --duration: runs until Ctrl-C or POST /stop; the console is at http://127.0.0.1:8080/)
 *   bench --target dynomite --compare jedis-pools,lettuce,dyno,dyno:pipeline=3-10 --rounds 3 --warmup 5s --duration 20s
 *   bench --driver jedis-pools --autotune start=2000,factor=1.5,step=4,sla=5ms,errors=0.001 --duration 60s
 *   bench --target nodes:127.0.0.1:8102:rack1:0,... --coordinator http://10.0.0.5:8080 --control-port 0
 *   bench --coordinate --control-port 8080              (a console for instances started elsewhere)
 *   bench --mode replication --target dynomite --iterations 5 --fault pause:rack2:0@10s-20s
 * </pre>
 * Targets ({@code --target}): {@code dynomite} (real Dynomite processes, {@link DynomiteTarget}; with
 * {@code --server-cpus 1} its processes are pinned there with taskset), {@code companion} (the embedded
 * companion cluster, {@code --backend redis|memory}), {@code auto} (the default: dynomite when its
 * binary and redis-server are found and no {@code --backend memory} was asked for, else companion),
 * {@code describe:<url>}, {@code nodes:<host:port:rack:token>,...}. Every {@link BenchConfig} setting
 * is an option ({@code --name value} or {@code --name=value}; the options, their help and the older
 * spellings are in {@link BenchOptions}). Reports go to {@code --report-dir} (default
 * {@link BenchOptions#DEFAULT_REPORT_DIR}, in the system's temporary directory) as
 * {@code <report-name>.json/.html}.
 */
public final class BenchMain {
  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out));
  }

  /** Runs the command line; returns the exit code (2 for a bad command line, with the reason and the usage). */
  public static int run(String[] args, PrintStream stdout) throws Exception {
    CommandLine cl = new CommandLine(BenchOptions.spec());
    BenchOptions.Parsed parsed;
    try {
      parsed = BenchOptions.parse(cl, args);
    } catch (CommandLine.ParameterException e) {
      stdout.println("bench: " + e.getMessage());
      cl.usage(stdout);
      return 2;
    }
    if (parsed.help()) {
      cl.usage(stdout);
      return 0;
    }
    Map<String, String> opts = parsed.tool();
    Consumer<String> out = line -> {
      synchronized (stdout) {
        stdout.println(line);
        stdout.flush();
      }
    };
    if (parsed.coordinate()) {
      return coordinate(opts, out);
    }
    String targetSpec = opts.get("target");
    String backendName = opts.get("backend");
    String serverCpus = opts.get("server-cpus");
    int rounds = Integer.parseInt(opts.getOrDefault("rounds", "1"));
    Duration warmup = SettingValues.parseDuration("warmup", opts.getOrDefault("warmup", "0s"));
    int racks = Integer.parseInt(opts.getOrDefault("racks", "3"));
    int perRack = Integer.parseInt(opts.getOrDefault("nodes-per-rack", "2"));
    String driverName = opts.get("driver");
    String compare = opts.get("compare");
    String autotune = opts.get("autotune");
    String settingsFile = opts.get("settings-file");
    String controlPort = opts.get("control-port");
    Path reportDir = opts.containsKey("report-dir")
        ? Path.of(opts.get("report-dir"))
        : BenchOptions.DEFAULT_REPORT_DIR;
    String reportName = opts.getOrDefault("report-name", "bench");
    String poolSize = opts.get("pool-size");
    String coordinator = opts.get("coordinator");
    String instanceName = opts.get("instance-name");
    String faultSpec = opts.get("fault");
    int keepSamples = Integer.parseInt(opts.getOrDefault("keep-samples", "3600"));
    String mode = opts.getOrDefault("mode", "load");
    Map<String, String> repl = new LinkedHashMap<>();
    for (String k :
        List.of("write-rack", "iterations", "repl-keys", "repl-sample", "repl-bound", "repl-gap")) {
      String v = opts.get(k);
      if (v != null) repl.put(k, v);
    }
    if (!mode.equals("load") && !mode.equals("replication")) {
      throw new IllegalArgumentException("--mode " + mode + ": expected load or replication");
    }
    // A single run without --duration goes on until stopped; comparisons and auto-tuning need one.
    Map<String, String> settings = new LinkedHashMap<>(parsed.settings());
    if (!settings.containsKey("duration") && compare == null && autotune == null)
      settings.put("duration", "endless");

    BenchConfig.Builder b = BenchConfig.builder();
    settings.forEach(b::set);
    BenchConfig config = b.build();
    if (config.virtualThreads > 0 && !Callers.virtualThreadsAvailable()) {
      // Refused like a bad command line, before a cluster is started for nothing.
      stdout.println("bench: "
          + Callers.virtualThreadsUnavailable("--virtual-threads", config.virtualThreads));
      return 2;
    }
    if (config.endless() && (compare != null || autotune != null)) {
      throw new IllegalArgumentException(
          "setting duration: a comparison or auto-tune run needs a duration (e.g. --duration 20s)");
    }
    int connsPerNode = poolSize != null
        ? Integer.parseInt(poolSize)
        : Math.max(8, config.readers + config.writers + config.threads);
    String name = instanceName != null ? instanceName : defaultInstanceName();

    if (targetSpec == null || targetSpec.equals("auto")) {
      out.accept("target auto: "
          + (autoPicksDynomite(backendName)
              ? "real Dynomite, from the binary " + DynomiteTarget.binary().orElseThrow()
              : "the embedded companion cluster ("
                  + (DynomiteTarget.binary().isEmpty()
                      ? "no Dynomite binary given: DYNO_DYNOMITE_BINARY=<path> picks real Dynomite"
                      : "--backend memory")
                  + ")"));
    }
    try (Target target = openTarget(targetSpec, backendName, racks, perRack, serverCpus)) {
      out.accept("target: " + target.describe());
      target.hosts().forEach(h -> out.accept("  node " + h));
      Faults faults = Faults.parse(faultSpec, target);
      if (mode.equals("replication")) {
        return ReplicationDelay.runMain(
            target, repl, faults, controlPort, coordinator, name, reportDir, reportName, out);
      }
      Report report = new Report("Dyno bench: "
          + (compare != null ? "comparison" : driverName == null ? "dyno" : driverName) + " on "
          + target.describe());
      report.put("method", method(config, target));
      if (compare != null) {
        Comparison c =
            new Comparison(target, config, connsPerNode, out).rounds(rounds).warmup(warmup);
        report.put("comparisonMethod", c.method());
        c.run(Arrays.asList(compare.split(",")));
        c.results().forEach(report::add);
        report.put("comparison", c.rows());
        if (!c.redisBenchmark().isEmpty()) report.put("redisBenchmark", c.redisBenchmark());
        List<Path> files = report.write(reportDir, reportName);
        out.accept(
            "report: " + files.get(0).toAbsolutePath() + " and " + files.get(1).toAbsolutePath());
        return 0;
      }
      String driver = driverName == null ? "dyno" : driverName;
      try (Driver d = Drivers.create(
          driver,
          target,
          config.consistency,
          connsPerNode,
          Duration.ofSeconds(2),
          DynoDriver.Options.of(config))) {
        Bench bench = new Bench(config, d, out)
            .warmup(warmup)
            .targetName(target.describe())
            .keep(keepSamples, 1000)
            .serverCounters(target.serverCounters(), target.noServerCountersReason())
            .serverCpu(target.serverCpu(), target.noServerCpuReason())
            .clientCpu(new ClientCpu(target.serverThreadPrefix()));
        AutoTuner tuner = autotune == null ? null : autoTuner(autotune, out).attach(bench);
        // The report of the run so far: from the console (POST /report) at any time, and at the
        // end.
        Callable<List<Path>> writeReport = () -> {
          synchronized (report) {
            Report r = new Report(report.title());
            report.extra().forEach(r::put);
            r.add(bench.snapshot());
            r.put("events", bench.events());
            if (faults.any()) r.put("faults", faults.describe());
            if (tuner != null) {
              r.put("autotune", tuner.steps());
              r.put("autotuneSustainableRate", tuner.sustainableRate());
            }
            return r.write(reportDir, reportName);
          }
        };
        CountDownLatch finished = new CountDownLatch(1);
        Thread hook = new Thread(
            () -> {
              bench.stop(); // Ctrl-C: end the run; main writes the report and returns
              try {
                finished.await(60, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "bench-ctrl-c");
        Runtime.getRuntime().addShutdownHook(hook);
        try (ControlServer control = controlPort == null
                ? null
                : new ControlServer(bench, name, Integer.parseInt(controlPort), writeReport);
            SettingsFileWatcher watcher = settingsFile == null
                ? null
                : new SettingsFileWatcher(
                    Path.of(settingsFile), Duration.ofMillis(500), bench.knobs(), out)) {
          if (control != null) {
            out.accept(
                "console: " + control.url()
                    + "/  (REST: /status /settings /set?readRate=N /start /pause /stop /backfill /report)");
            if (coordinator != null) {
              control.registerWith(coordinator);
              out.accept("registering as " + name + " with the coordinator " + coordinator);
            }
          } else if (coordinator != null) {
            throw new IllegalArgumentException("--coordinator " + coordinator
                + " needs --control-port (the coordinator calls this instance's console)");
          }
          if (watcher != null)
            out.accept("watching settings file " + settingsFile + " (runtime settings: "
                + BenchConfig.RUNTIME_SETTINGS + ")");
          if (config.endless())
            out.accept("endless run: stop it with Ctrl-C"
                + (control != null ? " or POST " + control.url() + "/stop" : ""));
          faults.schedule(bench::elapsedSeconds, bench::event, out);
          BenchResult r;
          try {
            r = bench.run();
          } finally {
            faults.close();
          }
          out.accept(r.summaryText());
          if (tuner != null) {
            out.accept(String.format(
                "auto-tune: highest sustainable rate %.0f ops/s", tuner.sustainableRate()));
          }
          List<Path> files = writeReport.call();
          out.accept("report: " + files.get(0).toAbsolutePath() + " and "
              + files.get(1).toAbsolutePath());
        } finally {
          finished.countDown();
          try {
            Runtime.getRuntime().removeShutdownHook(hook);
          } catch (IllegalStateException e) {
            // shutting down already (Ctrl-C): the hook is running and waits for finished
          }
        }
      }
    }
    return 0;
  }

  private static String defaultInstanceName() {
    String host = System.getenv().getOrDefault("HOSTNAME", "host");
    return host + "-" + ProcessHandle.current().pid();
  }

  /** A console without load: instances register with it and it drives them; ends on Ctrl-C. */
  private static int coordinate(Map<String, String> opts, Consumer<String> out) throws Exception {
    String port = opts.get("control-port");
    if (port == null) throw new IllegalArgumentException("--coordinate needs --control-port");
    try (ControlServer c = ControlServer.coordinator(Integer.parseInt(port))) {
      out.accept("coordinator console: " + c.url() + "/  (instances start with --coordinator "
          + c.url() + " --control-port 0)");
      CountDownLatch forever = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(forever::countDown, "coordinator-ctrl-c"));
      forever.await();
    }
    return 0;
  }

  /** {@code --target auto}: real Dynomite only when a binary is given (and Redis can run behind it). */
  static boolean autoPicksDynomite(String backend) {
    boolean memory = backend != null && backend.equalsIgnoreCase("memory");
    return !memory && DynomiteTarget.binary().isPresent() && EmbeddedTarget.redisOnPath();
  }

  static Target openTarget(String spec, String backend, int racks, int perRack, String serverCpus) {
    String s = spec == null ? "auto" : spec;
    if (s.equals("auto")) {
      s = autoPicksDynomite(backend) ? "dynomite" : "companion";
    }
    if (serverCpus != null && !s.equals("dynomite")) {
      throw new IllegalArgumentException("--server-cpus " + serverCpus
          + " needs --target dynomite (the companion runs in this JVM; "
          + "pin the whole JVM with taskset instead), target was " + s);
    }
    if (s.equals("dynomite")) {
      if (backend != null
          && !backend.equalsIgnoreCase("redis")
          && !backend.equalsIgnoreCase("auto")) {
        throw new IllegalArgumentException(
            "--backend " + backend + ": real Dynomite always runs in front of redis-server");
      }
      return DynomiteTarget.start(racks, perRack, serverCpus);
    }
    if (s.equals("companion") || s.equals("embedded")) {
      Backend b = backend == null || backend.equals("auto")
          ? null
          : Backend.valueOf(backend.toUpperCase(Locale.ROOT));
      return EmbeddedTarget.start(racks, perRack, b);
    }
    return Target.parse(s);
  }

  static AutoTuner autoTuner(String spec, Consumer<String> out) {
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
    long sla =
        SettingValues.parseDuration("autotune.sla", m.getOrDefault("sla", "5ms")).toNanos() / 1000;
    double errors = Double.parseDouble(m.getOrDefault("errors", "0.001"));
    return new AutoTuner(start, factor, step, sla, errors, out);
  }

  /** The method, written out beside the numbers (instance, threads, payload, keys, ratio, run length). */
  static Map<String, Object> method(BenchConfig c, Target t) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(
        "instance",
        Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("os.name")
            + " " + System.getProperty("os.arch") + ", Java " + Runtime.version()
            + ", one machine, loopback, shared with other builds");
    m.put("cluster", t.describe());
    m.put("threads", Callers.describe(c));
    m.put(
        "payload",
        c.valueSize == c.valueSizeMax
            ? c.valueSize + " bytes"
            : c.valueSize + ".." + c.valueSizeMax + " bytes");
    m.put("keys", c.keys + " (" + c.distribution.name().toLowerCase() + ")");
    m.put(
        "readWriteRatio",
        c.threads > 0 || c.virtualThreads > 0
            ? c.readPercent + "% GET / " + (100 - c.readPercent) + "% SET"
            : "reader/writer threads");
    m.put(
        "runLength",
        c.endless()
            ? "endless (until stopped), after one backfill; settings may change during the run (see events)"
            : c.duration.toMillis() / 1000.0 + " s measured per run, after one backfill");
    m.put("pipeline", c.pipelined() ? c.pipelineMin + ".." + c.pipelineMax + " commands" : "none");
    m.put("consistency", c.consistency.name());
    return m;
  }

  /**
   * A small tool's options, each {@code --name value}, parsed by picocli into name → value; unknown
   * options and missing values are refused with picocli's message.
   */
  static Map<String, String> parseOptions(String command, List<String> names, String[] args) {
    CommandSpec spec = CommandSpec.create().name(command);
    for (String n : names)
      spec.addOption(
          OptionSpec.builder("--" + n).paramLabel("<value>").type(String.class).build());
    ParseResult pr;
    try {
      pr = new CommandLine(spec).parseArgs(args);
    } catch (CommandLine.ParameterException e) {
      throw new IllegalArgumentException(
          e.getMessage() + "; options: --" + String.join(", --", names));
    }
    Map<String, String> m = new LinkedHashMap<>();
    for (OptionSpec o : pr.matchedOptions())
      m.put(o.longestName().substring(2), (String) pr.matchedOptionValue(o.longestName(), null));
    return m;
  }

  /** Prints the usage (for scripts and tests). */
  static void usage(PrintWriter w) {
    new CommandLine(BenchOptions.spec()).usage(w);
  }
}
