package io.dyno.demo.drivers;

import io.dyno.core.Host;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code redis-benchmark} (when on the PATH) against every node at once, clients split over
 * the nodes, GET and SET separately (it cannot mix them), and sums the requests per second. Not
 * token-aware: each process hits one node for all keys, so Dynomite forwards about half of them.
 */
public final class RedisBenchmark {
  /** Summed requests/s of all processes for one command, with the worst p50/p99 seen. */
  public record Result(String command, double rps, double p50Ms, double p99Ms) {}

  private RedisBenchmark() {}

  public static boolean available() {
    String path = System.getenv("PATH");
    if (path == null) return false;
    for (String dir : path.split(File.pathSeparator)) {
      if (new File(dir, "redis-benchmark").canExecute()) return true;
    }
    return false;
  }

  /** Runs GET and SET; returns command → result. */
  public static Map<String, Result> run(List<Host> hosts, int clients, long requestsPerCommand, int valueSize, long keys,
      int pipeline, long timeoutSeconds) throws IOException, InterruptedException {
    int perNodeClients = Math.max(1, clients / hosts.size());
    long perNodeRequests = Math.max(1000, requestsPerCommand / hosts.size());
    List<Process> procs = new ArrayList<>();
    for (Host h : hosts) {
      List<String> cmd = new ArrayList<>(List.of("redis-benchmark", "-h", h.address(), "-p", Integer.toString(h.port()),
          "-c", Integer.toString(perNodeClients), "-n", Long.toString(perNodeRequests), "-d", Integer.toString(valueSize),
          "-r", Long.toString(keys), "-t", "set,get", "--csv"));
      if (pipeline > 1) {
        cmd.add("-P");
        cmd.add(Integer.toString(pipeline));
      }
      procs.add(new ProcessBuilder(cmd).redirectErrorStream(true).start());
    }
    Map<String, double[]> sums = new LinkedHashMap<>();
    for (Process p : procs) {
      List<String> lines = new ArrayList<>();
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) lines.add(line);
      }
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("redis-benchmark did not finish within " + timeoutSeconds + "s");
      }
      for (String line : lines) {
        // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
        String[] f = line.replace("\"", "").split(",");
        if (f.length < 7 || !(f[0].equals("SET") || f[0].equals("GET"))) continue;
        double[] s = sums.computeIfAbsent(f[0], k -> new double[3]);
        s[0] += Double.parseDouble(f[1]);
        s[1] = Math.max(s[1], Double.parseDouble(f[4]));
        s[2] = Math.max(s[2], Double.parseDouble(f[6]));
      }
      if (lines.stream().noneMatch(l -> l.startsWith("\"GET\""))) {
        throw new IOException("redis-benchmark printed no GET result: " + String.join(" | ", lines));
      }
    }
    Map<String, Result> out = new LinkedHashMap<>();
    sums.forEach((k, s) -> out.put(k, new Result(k, s[0], s[1], s[2])));
    return out;
  }
}
