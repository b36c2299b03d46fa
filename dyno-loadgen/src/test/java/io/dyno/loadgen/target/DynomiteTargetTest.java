package io.dyno.loadgen.target;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.dynomite.DynomiteAssumptions;
import io.dyno.loadgen.BenchMain;
import io.dyno.loadgen.bench.JsonIn;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/**
 * The load generator against real Dynomite processes (3 racks x 2 nodes): every driver's runs carry
 * per-node counts, the client's beside Dynomite's own ({@code /info}) and the Redis behind each node
 * ({@code INFO commandstats}), all numbers; variants keep the names they were given.
 */
class DynomiteTargetTest {

  @Test
  @SuppressWarnings("unchecked")
  void
      everyVariantReportsPerNodeCountsReadFromDynomiteAndItsRedisAndTokenAwareDynoIsNeverForwarded()
          throws Exception {
    DynomiteAssumptions.assumeBinary();
    Path dir = Files.createTempDirectory("bench-dynomite");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = BenchMain.run(
        new String[] {
          "--target",
          "dynomite",
          "--compare",
          "jedis-pools,dyno,dyno:pipeline=3-10",
          "--rounds",
          "1",
          "--duration",
          "2s",
          "--keys",
          "600",
          "--valueSize",
          "64",
          "--threads",
          "4",
          "--readers",
          "0",
          "--writers",
          "0",
          "--report-dir",
          dir.toString(),
          "--report-name",
          "dyn"
        },
        new PrintStream(buf, true, StandardCharsets.UTF_8));
    String out = buf.toString(StandardCharsets.UTF_8);
    assertThat(code).as(out).isZero();
    assertThat(out)
        .contains("real Dynomite, 3 racks x 2 nodes")
        .doesNotContain(" -1 ")
        .contains("server CPU: ", "us/op (dynomite ", "of 12 processes over ", "srv us/op")
        .doesNotContain("server CPU n/a");

    String json = Files.readString(dir.resolve("dyn.json"));
    assertThat(json)
        .doesNotContain(
            "\"serverRequests\":-1", "\"serverForwarded\":-1", "\"clientRequests\":-1", "n/a");
    List<Map<String, Object>> runs =
        (List<Map<String, Object>>) JsonIn.parseObject(json).get("runs");
    assertThat(runs)
        .extracting(r -> r.get("variant"))
        .containsExactly("jedis-pools", "dyno", "dyno:pipeline=3-10");
    for (Map<String, Object> run : runs) {
      // Server CPU of the 6 dynomite + 6 redis-server processes in the measured part, per
      // operation.
      Map<String, Object> cpu = (Map<String, Object>) run.get("serverCpu");
      double wall = ((Number) run.get("seconds")).doubleValue();
      long ops = ((Number) run.get("reads")).longValue() + ((Number) run.get("writes")).longValue();
      assertThat(((Number) cpu.get("processes")).intValue()).isEqualTo(12);
      assertThat(((Number) cpu.get("ops")).longValue()).isEqualTo(ops);
      double dyn = ((Number) cpu.get("dynomiteSeconds")).doubleValue();
      double red = ((Number) cpu.get("redisSeconds")).doubleValue();
      assertThat(dyn).as("dynomite CPU of %s", run.get("variant")).isPositive();
      assertThat(dyn + red)
          .as(
              "server CPU of %s: no more than the machine's cores over the run (+ ticks)",
              run.get("variant"))
          .isLessThanOrEqualTo((wall + 0.5) * Runtime.getRuntime().availableProcessors());
      assertThat(((Number) cpu.get("microsPerOp")).doubleValue())
          .isPositive()
          .isCloseTo((dyn + red) * 1e6 / ops, Offset.offset(0.05 + 0.02 * 1e6 / ops));
      List<Map<String, Object>> nodes = (List<Map<String, Object>>) run.get("nodes");
      assertThat(nodes).as("nodes of %s", run.get("variant")).hasSize(6);
      long forwarded = 0;
      long received = 0;
      for (Map<String, Object> n : nodes) {
        long client = num(n.get("clientRequests"));
        long server = num(n.get("serverRequests"));
        long fwd = num(n.get("serverForwarded"));
        long redis = num(n.get("backendServed"));
        assertThat(server)
            .as("%s %s: Dynomite counts what the client sent", run.get("variant"), n.get("node"))
            .isEqualTo(client);
        forwarded += fwd;
        received += server;
        if (!run.get("variant").equals("jedis-pools")) {
          assertThat(fwd)
              .as("%s %s forwarded", run.get("variant"), n.get("node"))
              .isZero();
          if (n.get("rack").equals("rack1")) {
            // Token-aware: the node owns every key it receives, so its own Redis ran exactly those.
            assertThat(client).isPositive();
            assertThat(redis).as("Redis of %s", n.get("node")).isEqualTo(server);
          } else {
            assertThat(client)
                .as("%s sends nothing outside its local rack", run.get("variant"))
                .isZero();
            assertThat(redis)
                .as("replicas of rack1's writes in %s", n.get("node"))
                .isPositive();
          }
        }
      }
      if (run.get("variant").equals("jedis-pools")) {
        // Round robin over two nodes per rack: about half the keys belong to the other node.
        assertThat((double) forwarded / received).isBetween(0.3, 0.7);
      }
    }
    comparisonRowsCarryServerCpu(json);
  }

  @SuppressWarnings("unchecked")
  private static void comparisonRowsCarryServerCpu(String json) {
    List<Map<String, Object>> rows =
        (List<Map<String, Object>>) JsonIn.parseObject(json).get("comparison");
    assertThat(rows)
        .extracting(r -> r.get("variant"))
        .containsExactly("jedis-pools", "dyno", "dyno:pipeline=3-10");
    for (Map<String, Object> r : rows) {
      assertThat(((Number) r.get("serverCpuMicrosPerOp")).doubleValue())
          .as("%s", r.get("variant"))
          .isPositive();
      assertThat(((Number) r.get("serverCpuVsBaseline")).doubleValue()).isPositive();
      assertThat((String) r.get("serverCpuSplit")).matches("dynomite [0-9.]+ \\+ redis [0-9.]+");
    }
    assertThat(((Number) rows.get(0).get("serverCpuVsBaseline")).doubleValue()).isEqualTo(1.0);
  }

  private static long num(Object o) {
    assertThat(o).isInstanceOf(Number.class);
    return ((Number) o).longValue();
  }
}
