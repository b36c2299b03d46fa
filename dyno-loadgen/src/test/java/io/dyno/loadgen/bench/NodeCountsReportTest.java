package io.dyno.loadgen.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A per-node count that was not measured is written as "n/a (reason)", never as a number such as -1. */
class NodeCountsReportTest {

  @Test
  void unavailableCountsAreWrittenAsNaWithTheirReasonInJsonAndConsole() {
    NodeStat measured =
        new NodeStat("127.0.0.1:1", "rack1", Count.of(10), Count.of(10), Count.of(0), Count.of(12));
    NodeStat unknown = NodeStat.clientOnly(
        "127.0.0.1:2", "rack1", Count.of(7), "the target gives no access to the servers' counters");
    String json = JsonOut.write(List.of(measured, unknown));
    assertThat(json)
        .isEqualTo(
            "[{\"node\":\"127.0.0.1:1\",\"rack\":\"rack1\",\"clientRequests\":10,\"serverRequests\":10,"
                + "\"serverForwarded\":0,\"backendServed\":12},{\"node\":\"127.0.0.1:2\",\"rack\":\"rack1\",\"clientRequests\":7,"
                + "\"serverRequests\":\"n/a (the target gives no access to the servers' counters)\","
                + "\"serverForwarded\":\"n/a (the target gives no access to the servers' counters)\","
                + "\"backendServed\":\"n/a (the target gives no access to the servers' counters)\"}]");

    BenchResult r = new BenchResult(
        "dyno:pipeline=3-10",
        1,
        "dyno",
        "t",
        Map.of(),
        0,
        0,
        0,
        1,
        5,
        5,
        0,
        1,
        1,
        1,
        1,
        1,
        1,
        1,
        0,
        0,
        List.of(),
        List.of(measured, unknown),
        ServerCpu.Use.na("the target does not start the servers"),
        ClientCpu.Use.na("the measured part has not started"),
        Map.of(),
        Map.of(),
        1,
        1,
        "platform threads",
        1,
        0,
        "");
    assertThat(r.summaryText())
        .startsWith("== dyno:pipeline=3-10 on t")
        .contains("n/a[1]: the target gives no access to the servers' counters")
        .doesNotContain(" -1");
  }

  @Test
  void sumsOfCountsStayNaWhenAnyPartIsNa() {
    assertThat(Count.of(2).plus(Count.of(3))).isEqualTo(Count.of(5));
    assertThat(Count.of(2).plus(Count.na("x")).toString()).isEqualTo("n/a (x)");
  }
}
