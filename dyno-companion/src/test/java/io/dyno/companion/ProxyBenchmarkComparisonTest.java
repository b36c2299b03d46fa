package io.dyno.companion;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * redis-benchmark through a companion proxy node vs its redis-server directly, in one run, as a
 * ratio. Opt-in (slow, machine-dependent): {@code -Dcompanion.bench=true}. Prints the numbers.
 */
@EnabledIfSystemProperty(named = "companion.bench", matches = "true")
class ProxyBenchmarkComparisonTest {
  private static final Pattern RPS = Pattern.compile("(SET|GET): ([0-9.]+) requests per second");

  private static double[] bench(int port, int n) throws Exception {
    String out = ExternalClientsTest.run(300, "redis-benchmark", "-p", String.valueOf(port), "-t", "set,get", "-d", "1024",
        "-n", String.valueOf(n), "-c", "40", "-q");
    double[] r = new double[2];
    Matcher m = RPS.matcher(out);
    while (m.find()) {
      r[m.group(1).equals("SET") ? 0 : 1] = Double.parseDouble(m.group(2));
    }
    return r;
  }

  @Test
  void proxyNodeVersusItsRedisDirectly() throws Exception {
    int rounds = Integer.getInteger("companion.bench.rounds", 3);
    int n = Integer.getInteger("companion.bench.n", 100_000);
    try (CompanionCluster c = CompanionCluster.builder().racks(1).nodesPerRack(1).backend(Backend.REDIS).start()) {
      CompanionNode node = c.node("rack1", 0);
      bench(node.clientPort(), 20_000); // JIT warm-up
      List<double[]> direct = new ArrayList<>();
      List<double[]> proxy = new ArrayList<>();
      for (int i = 0; i < rounds; i++) { // interleaved so machine noise hits both alike
        direct.add(bench(node.redisPort(), n));
        proxy.add(bench(node.clientPort(), n));
      }
      double[] d = median(direct);
      double[] p = median(proxy);
      System.out.printf("redis-benchmark -t set,get -d 1024 -n %d -c 40, median of %d interleaved rounds%n", n, rounds);
      System.out.printf("  direct redis-server : SET %.0f/s  GET %.0f/s%n", d[0], d[1]);
      System.out.printf("  companion proxy     : SET %.0f/s  GET %.0f/s%n", p[0], p[1]);
      System.out.printf("  ratio proxy/direct  : SET %.2fx  GET %.2fx  (Dynomite here: SET ~0.35x, GET ~0.6x)%n",
          p[0] / d[0], p[1] / d[1]);
      for (int i = 0; i < rounds; i++) {
        System.out.printf("  round %d: direct %.0f/%.0f proxy %.0f/%.0f%n", i, direct.get(i)[0], direct.get(i)[1],
            proxy.get(i)[0], proxy.get(i)[1]);
      }
      assertThat(p[0]).isPositive();
      assertThat(p[1]).isPositive();
    }
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
}
