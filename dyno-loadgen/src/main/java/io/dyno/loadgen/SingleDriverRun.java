package io.dyno.loadgen;

import io.dyno.loadgen.bench.AutoTuner;
import io.dyno.loadgen.bench.Bench;
import io.dyno.loadgen.bench.BenchConfig;
import io.dyno.loadgen.bench.BenchResult;
import io.dyno.loadgen.bench.ClientCpu;
import io.dyno.loadgen.bench.ControlServer;
import io.dyno.loadgen.bench.Driver;
import io.dyno.loadgen.bench.Report;
import io.dyno.loadgen.bench.SettingsFileWatcher;
import io.dyno.loadgen.drivers.Drivers;
import io.dyno.loadgen.drivers.DynoDriver;
import io.dyno.loadgen.target.Target;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One driver's run of {@code bench} (no {@code --compare}): the bench with its console, settings
 * file, faults and auto-tuner as the options ask, ended by its duration, Ctrl-C or {@code POST
 * /stop}; then the summary and the report.
 */
final class SingleDriverRun {
  private final RunOptions o;
  private final BenchConfig config;
  private final Target target;
  private final Faults faults;
  private final Report report;
  private final Consumer<String> out;

  SingleDriverRun(
      RunOptions o,
      BenchConfig config,
      Target target,
      Faults faults,
      Report report,
      Consumer<String> out) {
    this.o = o;
    this.config = config;
    this.target = target;
    this.faults = faults;
    this.report = report;
    this.out = out;
  }

  void run(int connsPerNode) throws Exception {
    try (Driver d = Drivers.create(
        o.driverOrDefault(),
        target,
        config.consistency,
        connsPerNode,
        Duration.ofSeconds(2),
        DynoDriver.Options.of(config))) {
      Bench bench = new Bench(config, d, out)
          .warmup(o.warmup())
          .targetName(target.describe())
          .keep(o.keepSamples(), 1000)
          .serverCounters(target.serverCounters(), target.noServerCountersReason())
          .serverCpu(target.serverCpu(), target.noServerCpuReason())
          .clientCpu(new ClientCpu(target.serverThreadPrefix()));
      AutoTuner tuner =
          o.autotune() == null ? null : AutoTuner.parse(o.autotune(), out).attach(bench);
      Callable<List<Path>> writeReport = () -> writeReport(bench, tuner);
      CountDownLatch finished = new CountDownLatch(1);
      Thread hook = stopOnCtrlC(bench, finished);
      try {
        runWithConsole(bench, tuner, writeReport);
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

  /** Ctrl-C ends the run; the JVM waits (up to a minute) for main to write the report. */
  private static Thread stopOnCtrlC(Bench bench, CountDownLatch finished) {
    Thread hook = new Thread(
        () -> {
          bench.stop();
          try {
            finished.await(60, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        },
        "bench-ctrl-c");
    Runtime.getRuntime().addShutdownHook(hook);
    return hook;
  }

  /** The run with its console and settings file open while it goes. */
  private void runWithConsole(Bench bench, AutoTuner tuner, Callable<List<Path>> writeReport)
      throws Exception {
    String name = o.instanceNameOrDefault();
    try (ControlServer control = o.controlPort() == null
            ? null
            : new ControlServer(bench, name, Integer.parseInt(o.controlPort()), writeReport);
        SettingsFileWatcher watcher = o.settingsFile() == null
            ? null
            : new SettingsFileWatcher(
                Path.of(o.settingsFile()), Duration.ofMillis(500), bench.knobs(), out)) {
      if (control != null) {
        out.accept("console: " + control.url()
            + "/  (REST: /status /settings /set?readRate=N /start /pause /stop /backfill /report)");
        if (o.coordinator() != null) {
          control.registerWith(o.coordinator());
          out.accept("registering as " + name + " with the coordinator " + o.coordinator());
        }
      } else if (o.coordinator() != null) {
        throw new IllegalArgumentException("--coordinator " + o.coordinator()
            + " needs --control-port (the coordinator calls this instance's console)");
      }
      if (watcher != null)
        out.accept("watching settings file " + o.settingsFile() + " (runtime settings: "
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
      out.accept(
          "report: " + files.get(0).toAbsolutePath() + " and " + files.get(1).toAbsolutePath());
    }
  }

  /** The report of the run so far: from the console (POST /report) at any time, and at the end. */
  private List<Path> writeReport(Bench bench, AutoTuner tuner) throws Exception {
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
      return r.write(o.reportDir(), o.reportName());
    }
  }
}
