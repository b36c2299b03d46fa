package io.dyno.loadgen;

import io.dyno.loadgen.bench.BenchConfig;
import io.dyno.loadgen.bench.Callers;
import io.dyno.loadgen.bench.ControlServer;
import io.dyno.loadgen.bench.Report;
import io.dyno.loadgen.target.Target;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import picocli.CommandLine;

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
 * spellings are in {@link BenchOptionCatalog}). Reports go to {@code --report-dir} (default
 * {@link BenchOptionCatalog#DEFAULT_REPORT_DIR}, in the system's temporary directory) as
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
    Consumer<String> out = line -> {
      synchronized (stdout) {
        stdout.println(line);
        stdout.flush();
      }
    };
    if (parsed.coordinate()) {
      return coordinate(parsed.tool(), out);
    }
    RunOptions o = RunOptions.of(parsed.tool());
    BenchConfig config = config(parsed.settings(), o);
    if (config.virtualThreads > 0 && !Callers.virtualThreadsAvailable()) {
      // Refused like a bad command line, before a cluster is started for nothing.
      stdout.println("bench: "
          + Callers.virtualThreadsUnavailable("--virtual-threads", config.virtualThreads));
      return 2;
    }
    return runOn(o, config, out);
  }

  /** The settings given; a single run without --duration goes on until stopped. */
  private static BenchConfig config(Map<String, String> given, RunOptions o) {
    Map<String, String> settings = new LinkedHashMap<>(given);
    if (!settings.containsKey("duration") && !o.needsDuration())
      settings.put("duration", "endless");
    BenchConfig.Builder b = BenchConfig.builder();
    settings.forEach(b::set);
    return b.build();
  }

  /** Starts the target, then runs what the options ask for on it: replication, a comparison, or one driver. */
  private static int runOn(RunOptions o, BenchConfig config, Consumer<String> out)
      throws Exception {
    if (config.endless() && o.needsDuration()) {
      throw new IllegalArgumentException(
          "setting duration: a comparison or auto-tune run needs a duration (e.g. --duration 20s)");
    }
    int connsPerNode = o.poolSize() != null
        ? Integer.parseInt(o.poolSize())
        : Math.max(8, config.readers + config.writers + config.threads);
    if (o.target() == null || o.target().equals("auto")) {
      out.accept(TargetChoice.describeAuto(o.backend()));
    }
    try (Target target =
        TargetChoice.open(o.target(), o.backend(), o.racks(), o.nodesPerRack(), o.serverCpus())) {
      out.accept("target: " + target.describe());
      target.hosts().forEach(h -> out.accept("  node " + h));
      Faults faults = Faults.parse(o.fault(), target);
      if (o.mode().equals("replication")) {
        return ReplicationCommand.run(
            target,
            o.replication(),
            faults,
            o.controlPort(),
            o.coordinator(),
            o.instanceNameOrDefault(),
            o.reportDir(),
            o.reportName(),
            out);
      }
      Report report = new Report("Dyno bench: "
          + (o.compare() != null ? "comparison" : o.driverOrDefault()) + " on "
          + target.describe());
      report.put("method", ReportMethod.of(config, target));
      if (o.compare() != null) {
        compare(o, config, target, connsPerNode, report, out);
      } else {
        new SingleDriverRun(o, config, target, faults, report, out).run(connsPerNode);
      }
    }
    return 0;
  }

  /** {@code --compare}: the variants in interleaved rounds, one report with every run and the table. */
  private static void compare(
      RunOptions o,
      BenchConfig config,
      Target target,
      int connsPerNode,
      Report report,
      Consumer<String> out)
      throws Exception {
    Comparison c =
        new Comparison(target, config, connsPerNode, out).rounds(o.rounds()).warmup(o.warmup());
    report.put("comparisonMethod", c.method());
    c.run(Arrays.asList(o.compare().split(",")));
    c.results().forEach(report::add);
    report.put("comparison", c.rows());
    if (!c.redisBenchmark().isEmpty()) report.put("redisBenchmark", c.redisBenchmark());
    List<Path> files = report.write(o.reportDir(), o.reportName());
    out.accept(
        "report: " + files.get(0).toAbsolutePath() + " and " + files.get(1).toAbsolutePath());
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

  /** Prints the usage (for scripts and tests). */
  static void usage(PrintWriter w) {
    new CommandLine(BenchOptions.spec()).usage(w);
  }
}
