package io.dyno.loadgen.drivers;

import io.dyno.core.Host;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code redis-benchmark} (when on the PATH) against every node at once, one process per
 * node, the clients split over the nodes (the first {@code clients % nodes} nodes get one more, so the
 * total is exactly {@code clients}). It cannot mix commands: GET and SET are separate runs, one after
 * the other, and each is reported as what it is. Not token-aware: each process sends every key to
 * its one node, so Dynomite forwards those the node does not own.
 *
 * <p>redis-benchmark does not count error replies; with {@code -e} it prints some of them (at most
 * one a second), so {@link Result#errorLinesShown()} is a lower bound, not a count.
 */
public final class RedisBenchmark {
  /** Summed requests/s of all processes for one command, the worst p50/p99 seen, and the error lines printed. */
  public record Result(
      String command,
      int clients,
      long requests,
      double rps,
      double p50Ms,
      double p99Ms,
      long errorLinesShown) {}

  private RedisBenchmark() {}

  public static boolean available() {
    String path = System.getenv("PATH");
    if (path == null) return false;
    for (String dir : path.split(File.pathSeparator)) {
      if (new File(dir, "redis-benchmark").canExecute()) return true;
    }
    return false;
  }

  /** Clients per node: {@code clients} split as evenly as possible, exactly {@code clients} in total. */
  public static int[] split(int clients, int nodes) {
    int[] c = new int[nodes];
    for (int i = 0; i < nodes; i++) {
      c[i] = clients / nodes + (i < clients % nodes ? 1 : 0);
    }
    return c;
  }

  /** Runs GET, then SET (separate runs); returns command → result. */
  public static Map<String, Result> run(
      List<Host> hosts,
      int clients,
      long requestsPerCommand,
      int valueSize,
      long keys,
      int pipeline,
      long timeoutSeconds)
      throws IOException, InterruptedException {
    Map<String, Result> out = new LinkedHashMap<>();
    for (String command : List.of("get", "set")) {
      Result r = runOne(
          command, hosts, clients, requestsPerCommand, valueSize, keys, pipeline, timeoutSeconds);
      out.put(r.command(), r);
    }
    return out;
  }

  /** One command ({@code get} or {@code set}) on every node at once. */
  public static Result runOne(
      String command,
      List<Host> hosts,
      int clients,
      long requests,
      int valueSize,
      long keys,
      int pipeline,
      long timeoutSeconds)
      throws IOException, InterruptedException {
    if (clients < hosts.size()) {
      throw new IllegalArgumentException(
          "redis-benchmark: " + clients + " clients cannot cover " + hosts.size() + " nodes");
    }
    int[] perNode = split(clients, hosts.size());
    List<Process> procs = new ArrayList<>();
    long total = 0;
    for (int i = 0; i < hosts.size(); i++) {
      Host h = hosts.get(i);
      long n = Math.max(1000, requests * perNode[i] / clients);
      total += n;
      List<String> cmd = new ArrayList<>(List.of(
          "redis-benchmark",
          "-h",
          h.address(),
          "-p",
          Integer.toString(h.port()),
          "-c",
          Integer.toString(perNode[i]),
          "-n",
          Long.toString(n),
          "-d",
          Integer.toString(valueSize),
          "-r",
          Long.toString(keys),
          "-t",
          command,
          "-e",
          "--csv"));
      if (pipeline > 1) {
        cmd.add("-P");
        cmd.add(Integer.toString(pipeline));
      }
      procs.add(new ProcessBuilder(cmd).redirectErrorStream(true).start());
    }
    double rps = 0;
    double p50 = 0;
    double p99 = 0;
    long errorLines = 0;
    String name = command.toUpperCase(Locale.ROOT);
    for (int i = 0; i < procs.size(); i++) {
      Process p = procs.get(i);
      List<String> lines = new ArrayList<>();
      try (BufferedReader r =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) lines.add(line);
      }
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("redis-benchmark against " + hosts.get(i).id()
            + " did not finish within " + timeoutSeconds + "s");
      }
      boolean found = false;
      for (String line : lines) {
        if (line.startsWith("Error")) {
          errorLines++;
          continue;
        }
        // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
        String[] f = line.replace("\"", "").split(",");
        if (f.length < 7 || !f[0].equals(name)) continue;
        found = true;
        rps += Double.parseDouble(f[1]);
        p50 = Math.max(p50, Double.parseDouble(f[4]));
        p99 = Math.max(p99, Double.parseDouble(f[6]));
      }
      if (!found) {
        throw new IOException("redis-benchmark against " + hosts.get(i).id() + " printed no " + name
            + " result: " + String.join(" | ", lines));
      }
    }
    return new Result(name, clients, total, rps, p50, p99, errorLines);
  }
}
