package io.dyno.loadgen;

import io.dyno.loadgen.bench.ControlServer;
import io.dyno.loadgen.bench.Report;
import io.dyno.loadgen.bench.SettingValues;
import io.dyno.loadgen.target.Target;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/** {@code bench --mode replication}: a {@link ReplicationDelay} run with its console, faults and report. */
final class ReplicationCommand {
  private ReplicationCommand() {}

  /** The {@code --mode replication} command: runs, serves the figures on the console, writes the report. */
  static int run(
      Target target,
      Map<String, String> o,
      Faults faults,
      String controlPort,
      String coordinator,
      String name,
      Path reportDir,
      String reportName,
      Consumer<String> out)
      throws Exception {
    int iterations = Integer.parseInt(o.getOrDefault("iterations", "5"));
    Duration bound = SettingValues.parseDuration("repl-bound", o.getOrDefault("repl-bound", "5s"));
    Duration gap = SettingValues.parseDuration("repl-gap", o.getOrDefault("repl-gap", "1s"));
    try (ReplicationDelay r = new ReplicationDelay(
        target,
        o.get("write-rack"),
        Integer.parseInt(o.getOrDefault("repl-keys", "1000")),
        Integer.parseInt(o.getOrDefault("repl-sample", "20")),
        bound,
        gap,
        out)) {
      Report report = new Report("Dyno replication delay on " + target.describe());
      Callable<List<Path>> write = () -> {
        synchronized (report) {
          report.put("replication", r.status());
          if (faults.any()) report.put("faults", faults.describe());
          return report.write(reportDir, reportName);
        }
      };
      Thread hook = new Thread(r::stop, "replication-ctrl-c");
      Runtime.getRuntime().addShutdownHook(hook);
      ControlServer control = null;
      try {
        if (controlPort != null) {
          control = ControlServer.coordinator(Integer.parseInt(controlPort))
              .section("replication", r::status);
          out.accept("console: " + control.url() + "/");
          if (coordinator != null) control.registerWith(coordinator);
        }
        faults.schedule(r::seconds, r::event, out);
        r.run(iterations);
      } finally {
        faults.close();
        if (control != null) control.close();
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
          // shutting down already
        }
      }
      Map<String, Object> s = r.status();
      out.accept("== replication delay, write rack " + s.get("writeRack") + ", per rack over "
          + r.iterationsDone() + " iterations: " + s.get("racks"));
      List<Path> files = write.call();
      out.accept(
          "report: " + files.get(0).toAbsolutePath() + " and " + files.get(1).toAbsolutePath());
    }
    return 0;
  }
}
