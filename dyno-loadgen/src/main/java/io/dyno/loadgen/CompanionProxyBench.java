package io.dyno.loadgen;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.companion.dynomite.DynomiteCluster;
import io.dyno.companion.dynomite.DynomiteNode;
import io.dyno.core.Host;
import io.dyno.loadgen.drivers.RedisBenchmark;
import java.io.File;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a proxy hop and a forwarding hop cost, the companion's beside real Dynomite's, in one run:
 * redis-benchmark ({@code -t set} and {@code -t get}, separately) against
 * <ul>
 *   <li>a redis-server directly (the one behind the first companion node);</li>
 *   <li>a node of a 1-node companion cluster and of a 1-node Dynomite cluster (the proxy hop alone:
 *       the node owns every key);</li>
 *   <li>the first node of a 1-rack × 2-node companion cluster and of a 1-rack × 2-node Dynomite
 *       cluster (about half of the random keys belong to the other node and are forwarded to it).</li>
 * </ul>
 * Interleaved rounds, so noise on the shared machine hits every target alike; per target the median
 * and min–max of requests/s, and per round the ratio to Redis directly (median and min–max). A
 * measurement, not a test: {@code scripts/bench-companion.sh [--rounds 5] [--requests 100000]
 * [--clients 40] [--valueSize 1024] [--keys 100000]}. Without a dynomite binary only the companion
 * rows run (and the output says so).
 */
public final class CompanionProxyBench {
  private CompanionProxyBench() {}

  /** One thing redis-benchmark is pointed at. */
  private record Subject(String name, Host host) {}

  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out));
  }

  /** Runs the comparison; returns the exit code (2 for bad options or a missing redis-benchmark/redis-server). */
  public static int run(String[] args, PrintStream out) throws Exception {
    Map<String, String> opts = ToolOptions.parse(
        "companion-bench", List.of("rounds", "requests", "clients", "valueSize", "keys"), args);
    int rounds = intOption(opts, "rounds", 5);
    int requests = intOption(opts, "requests", 100_000);
    int clients = intOption(opts, "clients", 40);
    int valueSize = intOption(opts, "valueSize", 1024);
    int keys = intOption(opts, "keys", 100_000);
    if (!opts.isEmpty()) {
      throw new IllegalArgumentException("unknown option(s) " + opts.keySet()
          + ": expected --rounds, --requests, --clients, --valueSize, --keys");
    }
    if (!RedisBenchmark.available() || !onPath("redis-server")) {
      out.println(
          "proxy hop bench: needs redis-benchmark and redis-server on the PATH (Debian: redis-tools, redis-server)");
      return 2;
    }
    boolean dynomite = DynomiteCluster.binary().isPresent();
    List<AutoCloseable> clusters = new ArrayList<>();
    try {
      CompanionCluster c1 = CompanionCluster.builder()
          .racks(1)
          .nodesPerRack(1)
          .backend(Backend.REDIS)
          .start();
      clusters.add(c1);
      CompanionCluster c2 = CompanionCluster.builder()
          .racks(1)
          .nodesPerRack(2)
          .backend(Backend.REDIS)
          .start();
      clusters.add(c2);
      CompanionNode one = c1.node("rack1", 0);
      List<Subject> subjects = new ArrayList<>();
      subjects.add(new Subject("redis-server directly", host(one.redisPort())));
      subjects.add(new Subject("companion, 1 node (proxy hop)", host(one.clientPort())));
      subjects.add(new Subject(
          "companion, 2 nodes (~50% forwarded)", host(c2.node("rack1", 0).clientPort())));
      if (dynomite) {
        DynomiteCluster d1 = DynomiteCluster.builder().racks(1).nodesPerRack(1).start();
        clusters.add(d1);
        DynomiteCluster d2 = DynomiteCluster.builder().racks(1).nodesPerRack(2).start();
        clusters.add(d2);
        DynomiteNode dn = d1.node("rack1", 0);
        subjects.add(new Subject("Dynomite, 1 node (proxy hop)", host(dn.clientPort())));
        subjects.add(new Subject(
            "Dynomite, 2 nodes (~50% forwarded)", host(d2.node("rack1", 0).clientPort())));
      } else {
        out.println("no dynomite binary found (DynomiteCluster.binary()): Dynomite rows skipped");
      }
      for (Subject s : subjects) {
        out.printf("  %-38s 127.0.0.1:%d%n", s.name(), s.host().port());
        bench(
            s.host(),
            clients,
            Math.max(1000, requests / 5),
            valueSize,
            keys); // warm-up (JIT, buffers, keys)
      }
      Map<Subject, List<double[]>> runs = new LinkedHashMap<>();
      subjects.forEach(s -> runs.put(s, new ArrayList<>()));
      for (int i = 0; i < rounds; i++) {
        StringBuilder line = new StringBuilder("  round " + (i + 1) + ":");
        for (Subject s : subjects) {
          double[] r = bench(s.host(), clients, requests, valueSize, keys);
          runs.get(s).add(r);
          line.append(String.format("  [%s] SET %.0f GET %.0f", s.name(), r[0], r[1]));
        }
        out.println(line);
      }
      List<double[]> direct = runs.get(subjects.get(0));
      out.printf(
          "%nredis-benchmark -t set and -t get separately, -d %d -n %d -c %d -r %d; %d interleaved rounds after a warm-up;"
              + " median (min-max); ratio to redis-server directly taken per round%n",
          valueSize, requests, clients, keys, rounds);
      out.printf(
          "| %-38s | %-22s | %-22s | %-18s | %-18s |%n",
          "target", "SET/s", "GET/s", "SET vs direct", "GET vs direct");
      out.println("|---|---:|---:|---:|---:|");
      for (Subject s : subjects) {
        List<double[]> r = runs.get(s);
        out.printf(
            "| %-38s | %-22s | %-22s | %-18s | %-18s |%n",
            s.name(),
            spread(col(r, 0), "%.0f"),
            spread(col(r, 1), "%.0f"),
            spread(ratio(r, direct, 0), "%.2f"),
            spread(ratio(r, direct, 1), "%.2f"));
      }
      out.println(
          "(a node of a 2-node rack owns about half of the random keys and forwards the rest to the other node)");
    } finally {
      for (AutoCloseable c : clusters) {
        c.close();
      }
    }
    return 0;
  }

  private static double[] col(List<double[]> runs, int k) {
    return runs.stream().mapToDouble(x -> x[k]).toArray();
  }

  private static double[] ratio(List<double[]> runs, List<double[]> base, int k) {
    double[] r = new double[runs.size()];
    for (int i = 0; i < r.length; i++) r[i] = runs.get(i)[k] / base.get(i)[k];
    return r;
  }

  private static String spread(double[] v, String fmt) {
    return String.format(
        fmt + " (" + fmt + "-" + fmt + ")",
        Comparison.median(v),
        Comparison.min(v),
        Comparison.max(v));
  }

  private static Host host(int port) {
    return Host.builder("127.0.0.1", port).rack("rack1").datacenter("dc1").build();
  }

  /** SET and GET requests/s of one redis-benchmark run each. */
  private static double[] bench(Host h, int clients, int requests, int valueSize, int keys)
      throws Exception {
    Map<String, RedisBenchmark.Result> r =
        RedisBenchmark.run(List.of(h), clients, requests, valueSize, keys, 1, 600);
    return new double[] {r.get("SET").rps(), r.get("GET").rps()};
  }

  private static int intOption(Map<String, String> opts, String name, int dflt) {
    String v = opts.remove(name);
    if (v == null) return dflt;
    try {
      int n = Integer.parseInt(v.trim());
      if (n <= 0) throw new NumberFormatException();
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "option --" + name + ": \"" + v + "\" is not a positive integer");
    }
  }

  private static boolean onPath(String exe) {
    String path = System.getenv("PATH");
    if (path == null) return false;
    for (String dir : path.split(File.pathSeparator)) {
      if (new File(dir, exe).canExecute()) return true;
    }
    return false;
  }
}
