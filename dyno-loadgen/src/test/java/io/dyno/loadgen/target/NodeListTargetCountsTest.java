package io.dyno.loadgen.target;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.loadgen.BenchMain;
import io.dyno.loadgen.bench.JsonIn;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Regression: against a cluster given by address (describe: or nodes:), Dyno's runs had no per-node
 * data ("nodes": []) and the other drivers' server counts were -1. Every driver now reports what it
 * sent to each node, and the server counts say "n/a" with the reason.
 */
class NodeListTargetCountsTest {

  @Test
  @SuppressWarnings("unchecked")
  void everyDriverCountsPerNodeAndServerCountsAreNaWithTheReason() throws Exception {
    try (CompanionCluster c = CompanionCluster.builder()
        .racks(1)
        .nodesPerRack(2)
        .backend(Backend.MEMORY)
        .start()) {
      String nodes =
          c.nodes().stream().map(NodeListTargetCountsTest::spec).collect(Collectors.joining(","));
      Path dir = Files.createTempDirectory("bench-nodes");
      ByteArrayOutputStream buf = new ByteArrayOutputStream();
      int code = BenchMain.run(
          new String[] {
            "--target",
            "nodes:" + nodes,
            "--compare",
            "dyno,jedis-pools,dyno:pipeline=3-10",
            "--duration",
            "1s",
            "--keys",
            "300",
            "--valueSize",
            "32",
            "--threads",
            "2",
            "--readers",
            "0",
            "--writers",
            "0",
            "--report-dir",
            dir.toString(),
            "--report-name",
            "n"
          },
          new PrintStream(buf, true, StandardCharsets.UTF_8));
      assertThat(code).isZero();
      String json = Files.readString(dir.resolve("n.json"));
      assertThat(json).doesNotContain(":-1,", ":-1}");
      List<Map<String, Object>> runs =
          (List<Map<String, Object>>) JsonIn.parseObject(json).get("runs");
      assertThat(runs)
          .extracting(r -> r.get("variant"))
          .containsExactly("dyno", "jedis-pools", "dyno:pipeline=3-10");
      for (Map<String, Object> run : runs) {
        List<Map<String, Object>> perNode = (List<Map<String, Object>>) run.get("nodes");
        assertThat(perNode).as("nodes of %s", run.get("variant")).hasSize(2);
        long sent = perNode.stream()
            .mapToLong(n -> ((Number) n.get("clientRequests")).longValue())
            .sum();
        long ops =
            ((Number) run.get("reads")).longValue() + ((Number) run.get("writes")).longValue();
        assertThat(sent)
            .as("requests %s sent over the nodes", run.get("variant"))
            .isEqualTo(ops);
        for (Map<String, Object> n : perNode) {
          assertThat(n.get("serverRequests"))
              .asString()
              .startsWith("n/a (a describe: or nodes: target knows each node's client port only");
          assertThat(n.get("serverForwarded")).asString().startsWith("n/a (");
        }
      }
    }
  }

  private static String spec(CompanionNode n) {
    return "127.0.0.1:" + n.clientPort() + ":" + n.rack() + ":" + n.token();
  }
}
