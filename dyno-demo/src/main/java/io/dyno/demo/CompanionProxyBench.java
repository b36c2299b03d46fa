package io.dyno.demo;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.Host;
import io.dyno.demo.drivers.RedisBenchmark;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the companion's proxy hop costs: redis-benchmark against one companion node (redis backend)
 * and against that node's own redis-server directly, in interleaved rounds so machine noise hits
 * both alike; prints the median requests/s of each and the ratio proxy/direct. A measurement, not
 * a test: run it with {@code scripts/bench-companion.sh [--rounds 3] [--requests 100000]
 * [--clients 40] [--valueSize 1024] [--keys 100000]}.
 */
public final class CompanionProxyBench {
  private CompanionProxyBench() {}

  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out));
  }

  /** Runs the comparison; returns the exit code (2 for bad options or a missing redis-benchmark/redis-server). */
  public static int run(String[] args, PrintStream out) throws Exception {
    Map<String, String> opts = BenchMain.parse(args);
    int rounds = intOption(opts, "rounds", 3);
    int requests = intOption(opts, "requests", 100_000);
    int clients = intOption(opts, "clients", 40);
    int valueSize = intOption(opts, "valueSize", 1024);
    int keys = intOption(opts, "keys", 100_000);
    if (!opts.isEmpty()) {
      throw new IllegalArgumentException("unknown option(s) " + opts.keySet()
          + ": expected --rounds, --requests, --clients, --valueSize, --keys");
    }
    if (!RedisBenchmark.available() || !onPath("redis-server")) {
      out.println("companion proxy bench: needs redis-benchmark and redis-server on the PATH (Debian: redis-tools, redis-server)");
      return 2;
    }
    try (CompanionCluster c = CompanionCluster.builder().racks(1).nodesPerRack(1).backend(Backend.REDIS).start()) {
      CompanionNode node = c.node("rack1", 0);
      Host proxy = host(node.clientPort());
      Host direct = host(node.redisPort());
      out.printf("companion node 127.0.0.1:%d in front of redis-server 127.0.0.1:%d%n", node.clientPort(), node.redisPort());
      bench(proxy, clients, Math.max(1000, requests / 5), valueSize, keys); // JIT warm-up of the proxy
      List<double[]> directRuns = new ArrayList<>();
      List<double[]> proxyRuns = new ArrayList<>();
      for (int i = 0; i < rounds; i++) {
        directRuns.add(bench(direct, clients, requests, valueSize, keys));
        proxyRuns.add(bench(proxy, clients, requests, valueSize, keys));
        out.printf("  round %d: direct SET %.0f/s GET %.0f/s   proxy SET %.0f/s GET %.0f/s%n", i + 1,
            directRuns.get(i)[0], directRuns.get(i)[1], proxyRuns.get(i)[0], proxyRuns.get(i)[1]);
      }
      double[] d = median(directRuns);
      double[] p = median(proxyRuns);
      out.printf("redis-benchmark -t set,get -d %d -n %d -c %d -r %d, median of %d interleaved rounds%n",
          valueSize, requests, clients, keys, rounds);
      out.printf("  direct redis-server : SET %.0f/s  GET %.0f/s%n", d[0], d[1]);
      out.printf("  companion proxy     : SET %.0f/s  GET %.0f/s%n", p[0], p[1]);
      out.printf("  ratio proxy/direct  : SET %.2fx  GET %.2fx  (Dynomite, for reference: SET ~0.35x, GET ~0.6x)%n",
          p[0] / d[0], p[1] / d[1]);
    }
    return 0;
  }

  private static Host host(int port) {
    return Host.builder("127.0.0.1", port).rack("rack1").datacenter("dc1").build();
  }

  /** SET and GET requests/s of one redis-benchmark run. */
  private static double[] bench(Host h, int clients, int requests, int valueSize, int keys) throws Exception {
    Map<String, RedisBenchmark.Result> r = RedisBenchmark.run(List.of(h), clients, requests, valueSize, keys, 1, 600);
    if (!r.containsKey("SET") || !r.containsKey("GET")) {
      throw new IllegalStateException("redis-benchmark against " + h.id() + " reported " + r.keySet() + ", expected SET and GET");
    }
    return new double[] {r.get("SET").rps(), r.get("GET").rps()};
  }

  private static double[] median(List<double[]> runs) {
    double[] r = new double[2];
    for (int k = 0; k < 2; k++) {
      int kk = k;
      double[] v = runs.stream().mapToDouble(x -> x[kk]).sorted().toArray();
      r[k] = v[v.length / 2];
    }
    return r;
  }

  private static int intOption(Map<String, String> opts, String name, int dflt) {
    String v = opts.remove(name);
    if (v == null) return dflt;
    try {
      int n = Integer.parseInt(v.trim());
      if (n <= 0) throw new NumberFormatException();
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("option --" + name + ": \"" + v + "\" is not a positive integer");
    }
  }

  private static boolean onPath(String exe) {
    String path = System.getenv("PATH");
    if (path == null) return false;
    for (String dir : path.split(java.io.File.pathSeparator)) {
      if (new java.io.File(dir, exe).canExecute()) return true;
    }
    return false;
  }
}
