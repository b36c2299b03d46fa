package io.dyno.demo.target;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.dynomite.DynomiteAssumptions;
import io.dyno.core.internal.json.Json;
import io.dyno.demo.BenchMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The load generator against real Dynomite processes (3 racks x 2 nodes): every driver's runs carry
 * per-node counts, the client's beside Dynomite's own ({@code /info}) and the Redis behind each node
 * ({@code INFO commandstats}), all numbers; variants keep the names they were given.
 */
class DynomiteTargetTest {

  @Test
  @SuppressWarnings("unchecked")
  void everyVariantReportsPerNodeCountsReadFromDynomiteAndItsRedisAndTokenAwareDynoIsNeverForwarded() throws Exception {
    DynomiteAssumptions.assumeBinary();
    Path dir = Files.createTempDirectory("bench-dynomite");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = BenchMain.run(new String[] {"--target", "dynomite", "--compare", "jedis-pools,dyno,dyno:pipeline=3-10",
        "--rounds", "1", "--duration", "2s", "--keys", "600", "--valueSize", "64", "--threads", "4", "--readers", "0",
        "--writers", "0", "--report-dir", dir.toString(), "--report-name", "dyn"}, new PrintStream(buf, true, StandardCharsets.UTF_8));
    String out = buf.toString(StandardCharsets.UTF_8);
    assertThat(code).as(out).isZero();
    assertThat(out).contains("real Dynomite, 3 racks x 2 nodes").doesNotContain(" -1 ");

    String json = Files.readString(dir.resolve("dyn.json"));
    assertThat(json).doesNotContain("\"serverRequests\":-1", "\"serverForwarded\":-1", "\"clientRequests\":-1", "n/a");
    List<Map<String, Object>> runs = (List<Map<String, Object>>) Json.parseObject(json).get("runs");
    assertThat(runs).extracting(r -> r.get("variant")).containsExactly("jedis-pools", "dyno", "dyno:pipeline=3-10");
    for (Map<String, Object> run : runs) {
      List<Map<String, Object>> nodes = (List<Map<String, Object>>) run.get("nodes");
      assertThat(nodes).as("nodes of %s", run.get("variant")).hasSize(6);
      long forwarded = 0;
      long received = 0;
      for (Map<String, Object> n : nodes) {
        long client = num(n.get("clientRequests"));
        long server = num(n.get("serverRequests"));
        long fwd = num(n.get("serverForwarded"));
        long redis = num(n.get("backendServed"));
        assertThat(server).as("%s %s: Dynomite counts what the client sent", run.get("variant"), n.get("node")).isEqualTo(client);
        forwarded += fwd;
        received += server;
        if (!run.get("variant").equals("jedis-pools")) {
          assertThat(fwd).as("%s %s forwarded", run.get("variant"), n.get("node")).isZero();
          if (n.get("rack").equals("rack1")) {
            // Token-aware: the node owns every key it receives, so its own Redis ran exactly those.
            assertThat(client).isPositive();
            assertThat(redis).as("Redis of %s", n.get("node")).isEqualTo(server);
          } else {
            assertThat(client).as("%s sends nothing outside its local rack", run.get("variant")).isZero();
            assertThat(redis).as("replicas of rack1's writes in %s", n.get("node")).isPositive();
          }
        }
      }
      if (run.get("variant").equals("jedis-pools")) {
        // Round robin over two nodes per rack: about half the keys belong to the other node.
        assertThat((double) forwarded / received).isBetween(0.3, 0.7);
      }
    }
  }

  private static long num(Object o) {
    assertThat(o).isInstanceOf(Number.class);
    return ((Number) o).longValue();
  }
}
