package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.DeadlineExceededException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.DynoConfigBuilder;
import io.dyno.core.exec.CallOptions;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Response;

/**
 * Pipelines and split commands send every node's part before reading any reply, from the caller's
 * thread: the nodes work at the same time, a deadline bounds the whole call, and many callers at
 * once on few connections neither mix replies nor block each other.
 */
class PipelineOverlapTest {
  private CompanionCluster cluster;
  private DynoJedisClient client;

  @AfterEach
  void stop() {
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private void start(int racks, DynoConfigBuilder config) {
    cluster = CompanionCluster.builder()
        .racks(racks)
        .nodesPerRack(2)
        .backend(Backend.MEMORY)
        .start();
    client = DynoJedisClient.builder()
        .config(config.applicationName("pipeline-overlap").build())
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .build();
  }

  /** {@code n} keys owned by the given rack1 node. */
  private List<String> keysOwnedBy(CompanionNode owner, String prefix, int n) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; keys.size() < n; i++) {
      if (cluster.ownerOf("rack1", prefix + i).equals(owner)) {
        keys.add(prefix + i);
      }
    }
    return keys;
  }

  @Test
  void aPipelineOnTwoSlowNodesTakesAboutOneNodesDelayNotTheSumOfBoth() {
    start(1, DynoConfig.builder().socketTimeout(Duration.ofSeconds(5)));
    CompanionNode a = cluster.node("rack1", 0);
    CompanionNode b = cluster.node("rack1", 1);
    List<String> onA = keysOwnedBy(a, "a:", 4);
    List<String> onB = keysOwnedBy(b, "b:", 4);
    for (String k : onA) {
      client.set(k, "va-" + k);
    }
    for (String k : onB) {
      client.set(k, "vb-" + k);
    }
    Duration delay = Duration.ofMillis(800);
    a.delayReplies(delay);
    b.delayReplies(delay);

    List<Response<String>> reads = new ArrayList<>();
    long t0 = System.nanoTime();
    try (DynoPipeline p = client.pipelined()) {
      for (int i = 0; i < 4; i++) {
        reads.add(p.get(onA.get(i)));
        reads.add(p.get(onB.get(i)));
      }
      p.sync();
    }
    long pipelineMillis = (System.nanoTime() - t0) / 1_000_000;

    t0 = System.nanoTime();
    List<String> mget = client.mget(onA.get(0), onB.get(0), onA.get(1), onB.get(1));
    long mgetMillis = (System.nanoTime() - t0) / 1_000_000;

    for (int i = 0; i < 4; i++) {
      assertThat(reads.get(2 * i).get()).isEqualTo("va-" + onA.get(i));
      assertThat(reads.get(2 * i + 1).get()).isEqualTo("vb-" + onB.get(i));
    }
    assertThat(mget)
        .containsExactly(
            "va-" + onA.get(0), "vb-" + onB.get(0), "va-" + onA.get(1), "vb-" + onB.get(1));
    // One node after the other would take two delays (>= 1600 ms); overlapped it is one delay.
    assertThat(pipelineMillis)
        .as("pipeline over two nodes delayed 800 ms each")
        .isBetween(800L, 1400L);
    assertThat(mgetMillis)
        .as("MGET split over two nodes delayed 800 ms each")
        .isBetween(800L, 1400L);
  }

  @Test
  void aDeadlineBoundsTheWholePipelineNotEachNodeInTurn() {
    // One rack: no replica to move to, so each node's read may use all the time left.
    start(1, DynoConfig.builder().socketTimeout(Duration.ofSeconds(5)));
    CompanionNode a = cluster.node("rack1", 0);
    CompanionNode b = cluster.node("rack1", 1);
    List<String> onA = keysOwnedBy(a, "a:", 2);
    List<String> onB = keysOwnedBy(b, "b:", 2);
    a.hang();
    b.hang();
    Duration deadline = Duration.ofMillis(700);
    DynoJedisClient bounded = client.withOptions(CallOptions.defaults().withDeadline(deadline));

    List<Response<String>> reads = new ArrayList<>();
    long t0 = System.nanoTime();
    try (DynoPipeline p = bounded.pipelined()) {
      for (int i = 0; i < 2; i++) {
        reads.add(p.get(onA.get(i)));
        reads.add(p.get(onB.get(i)));
      }
      p.sync();
    }
    long millis = (System.nanoTime() - t0) / 1_000_000;

    // Reading each node in turn with a full deadline each would take 1400 ms.
    assertThat(millis)
        .as("pipeline on two hung nodes with a 700 ms deadline")
        .isBetween(650L, 1150L);
    for (Response<String> r : reads) {
      assertThatThrownBy(r::get)
          .isInstanceOf(DynoDeadlineExceededException.class)
          .hasMessageContaining("GET")
          .hasRootCauseInstanceOf(SocketTimeoutException.class)
          .satisfies(e -> assertThat(e.getCause()).isInstanceOf(DeadlineExceededException.class));
    }
  }

  @Test
  void sixteenCallersPipeliningOnFourConnectionsPerNodeEachGetTheirOwnReplies() throws Exception {
    start(
        3,
        DynoConfig.builder()
            .socketTimeout(Duration.ofSeconds(5))
            .maxConnsPerHost(4)
            .maxTimeoutWhenExhausted(Duration.ofSeconds(5)));
    int callers = 16;
    int rounds = 60;
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    try {
      List<Future<Integer>> done = new ArrayList<>();
      for (int c = 0; c < callers; c++) {
        int caller = c;
        done.add(pool.submit(() -> {
          int checked = 0;
          for (int round = 0; round < rounds; round++) {
            List<Response<String>> gets = new ArrayList<>();
            List<Response<Long>> incrs = new ArrayList<>();
            List<String> values = new ArrayList<>();
            try (DynoPipeline p = client.pipelined()) {
              for (int i = 0; i < 8; i++) { // 8 keys spread over both rack1 nodes
                String k = "c" + caller + ":" + i;
                String v = caller + "/" + round + "/" + i;
                values.add(v);
                p.set(k, v);
                gets.add(p.get(k));
                incrs.add(p.incr("n" + caller + ":" + i));
              }
              p.sync();
            }
            for (int i = 0; i < 8; i++) {
              assertThat(gets.get(i).get()).isEqualTo(values.get(i));
              assertThat(incrs.get(i).get()).isEqualTo(round + 1L);
              checked++;
            }
          }
          return checked;
        }));
      }
      for (Future<Integer> f : done) {
        assertThat(f.get(60, TimeUnit.SECONDS)).isEqualTo(rounds * 8);
      }
    } finally {
      pool.shutdownNow();
    }
    long requests = 0;
    for (CompanionNode n : cluster.nodes("rack1")) {
      assertThat(n.stats().requests()).as("requests on " + n.host()).isPositive();
      assertThat(n.stats().forwarded()).as("forwarded by " + n.host()).isZero();
      requests += n.stats().requests();
    }
    assertThat(requests).isGreaterThanOrEqualTo((long) callers * rounds * 24);
  }
}
