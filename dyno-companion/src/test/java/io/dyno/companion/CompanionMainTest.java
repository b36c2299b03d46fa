package io.dyno.companion;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.core.HostToken;
import io.dyno.core.topology.ClusterDescribeTokenMapSupplier;
import io.dyno.testsupport.RedisServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.Jedis;

/** The command line, run as a real child JVM. */
class CompanionMainTest {
  private static Process launch(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp",
        System.getProperty("java.class.path"),
        CompanionMain.class.getName()));
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd).redirectErrorStream(true).start();
  }

  /** Reads lines until one contains {@code marker} (bounded by the process dying; the test has its own timeout). */
  private static List<String> readUntil(Process p, String marker) throws Exception {
    BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    List<String> lines = new ArrayList<>();
    String line;
    while ((line = r.readLine()) != null) {
      lines.add(line);
      if (line.contains(marker)) {
        return lines;
      }
    }
    throw new AssertionError("process ended before printing \"" + marker + "\": " + lines);
  }

  @Test
  @Timeout(60)
  void nodeModePrintsReadyServesAndStopsOnSigterm() throws Exception {
    int port = RedisServer.freePort();
    int peer = RedisServer.freePort();
    int admin = RedisServer.freePort();
    Process p = launch(
        "--node",
        "--dc",
        "dc1",
        "--rack",
        "rack1",
        "--token",
        "0",
        "--port",
        "" + port,
        "--peer-port",
        "" + peer,
        "--admin-port",
        "" + admin,
        "--seeds",
        "127.0.0.1:" + RedisServer.freePort() + ":rack2:dc1:0");
    try {
      List<String> lines = readUntil(p, "Companion node ready");
      assertThat(lines.get(lines.size() - 1)).contains("client 127.0.0.1:" + port, "1 seeds");
      try (Jedis j = Clients.jedis(port)) {
        assertThat(j.set("foo", "bar")).isEqualTo("OK");
        assertThat(j.get("foo")).isEqualTo("bar");
      }
      assertThat(Clients.http("http://127.0.0.1:" + admin + "/cluster_describe"))
          .contains("\"name\":\"rack2\"");
      p.destroy(); // SIGTERM: the shutdown hook closes the node
      assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  @Timeout(60)
  void clusterModePrintsTopologyAndUrls() throws Exception {
    Process p =
        launch("--racks", "2", "--nodes-per-rack", "1", "--backend", "memory", "--hashtag", "{}");
    try {
      List<String> lines = readUntil(p, "Ctrl-C");
      String all = String.join("\n", lines);
      assertThat(all)
          .contains(
              "Companion cluster ready: 2 racks x 1 nodes, backend memory",
              "rack1",
              "rack2",
              "/cluster_describe",
              "http://127.0.0.1:");
      String row = lines.stream()
          .filter(l -> l.startsWith("dc1") && l.contains("rack2"))
          .findFirst()
          .orElseThrow();
      int port = Integer.parseInt(row.split("\\s+")[3].split(":")[1]);
      try (Jedis j = Clients.jedis(port)) {
        assertThat(j.ping()).isEqualTo("PONG");
      }
      p.destroy();
      assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    } finally {
      p.destroyForcibly();
    }
  }

  /**
   * Free ports, as docs/companion.md starts it: the one URL printed is read with the client's
   * default rule (client port = peer port + 1) and every node it describes answers there.
   */
  @Test
  @Timeout(60)
  void thePrintedUrlDescribesNodesAClientReachesWithFreePorts() throws Exception {
    Process p = launch("--racks", "2", "--nodes-per-rack", "2", "--backend", "memory");
    try {
      List<String> lines = readUntil(p, "Ctrl-C");
      int at = lines.indexOf(lines.stream()
          .filter(l -> l.startsWith("Cluster describe URL"))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no URL line in " + lines)));
      String url = lines.get(at + 1).strip();
      assertThat(url).matches("http://127\\.0\\.0\\.1:\\d+/cluster_describe");
      try (ClusterDescribeTokenMapSupplier describe = ClusterDescribeTokenMapSupplier.builder()
          .endpoint(url)
          .requestTimeout(Duration.ofSeconds(30)) // a busy machine's fresh JVM is slow
          .build()) {
        List<HostToken> nodes = describe.getHostTokens();
        assertThat(nodes).hasSize(4);
        for (HostToken node : nodes) {
          try (Jedis j = Clients.jedis(node.host().port(), 30_000)) {
            assertThat(j.ping()).as("node %s", node).isEqualTo("PONG");
          }
        }
      }
      p.destroy();
      assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  @Timeout(60)
  void badOptionNamesTheOption() throws Exception {
    Process p = launch("--rackz", "3");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(2);
    assertThat(out).contains("unknown option --rackz");
  }
}
