package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Registry;
import io.dyno.companion.dynomite.DynomiteAssumptions;
import io.dyno.companion.dynomite.DynomiteCluster;
import io.dyno.companion.dynomite.DynomiteNode;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.exec.CallOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The multiplexed transport through the documented client, against real Dynomite (3 racks x 2
 * nodes): every caller gets its own replies under concurrency, split commands, pipelines, scan and
 * consistency per call work as on pooled sockets, and a frozen node fails over within the deadline.
 */
class RealDynomiteMultiplexedTransportTest {
  static DynomiteCluster cluster;
  static DynoJedisClient client;

  @BeforeAll
  static void start() {
    DynomiteAssumptions.assumeBinary();
    cluster = DynomiteCluster.builder().racks(3).nodesPerRack(2).start();
    client = DynoJedisClient.builder()
        .applicationName("mux-e2e")
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .transport(Transport.MULTIPLEXED)
        .config(DynoConfig.builder()
            .maxConnsPerHost(64)
            .socketTimeout(Duration.ofMillis(1500))
            .requestDeadline(Duration.ofMillis(1200))
            .build())
        .build();
  }

  /**
   * Every test starts with the shared client holding every node in rotation: after a frozen-node
   * test the node is resumed, but the client takes it back only once its probes pass, and until
   * then a non-idempotent write owned by it is held (refused), not moved to another rack.
   */
  @BeforeEach
  void everyNodeInRotation() {
    await("every node back in the client's rotation")
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> client.topology().hosts().stream().allMatch(client::isNodeUp));
  }

  @AfterAll
  static void stop() {
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void fortyCallersEachGetTheirOwnReplies() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(40);
    try {
      List<Future<Integer>> done = new ArrayList<>();
      for (int t = 0; t < 40; t++) {
        int thread = t;
        done.add(pool.submit(() -> {
          for (int i = 0; i < 100; i++) {
            String key = "mux:" + thread + ":" + i;
            client.set(key, "v" + thread + "/" + i);
            assertThat(client.get(key)).isEqualTo("v" + thread + "/" + i);
          }
          return 100;
        }));
      }
      int total = 0;
      for (Future<Integer> f : done) {
        total += f.get(60, TimeUnit.SECONDS);
      }
      assertThat(total).isEqualTo(4000);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void splitCommandsPipelinesScanAndConsistencyPerCall() {
    for (int i = 0; i < 20; i++) {
      client.set("muxs:" + i, "x" + i);
    }
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      keys.add("muxs:" + i);
    }
    assertThat(client.mget(keys.toArray(String[]::new)))
        .containsExactlyElementsOf(keys.stream().map(k -> "x" + k.substring(5)).toList());
    DynoPipeline p = client.pipelined();
    for (String k : keys) {
      p.incr("muxc:" + k);
    }
    assertThat(p.syncAndReturnAll()).hasSize(20).allSatisfy(r -> assertThat(r).isEqualTo(1L));
    assertThat(client.scanAll("muxs:*").count()).isEqualTo(20);
    DynoJedisClient quorum =
        client.withOptions(CallOptions.defaults().withConsistency(ConsistencyLevel.DC_QUORUM));
    quorum.set("muxq", "q");
    assertThat(quorum.get("muxq")).isEqualTo("q");
    assertThat(client.get("muxq")).isEqualTo("q");
    assertThatThrownBy(() -> client.incr("muxs:0")).hasMessageContaining("not an integer");
    assertThat(client.get("muxs:0"))
        .as("a data error leaves the transport usable")
        .isEqualTo("x0");
  }

  @Test
  void aFrozenNodesReadsFailOverWithinTheDeadline() throws Exception {
    for (int i = 0; i < 200; i++) {
      client.set("muxf:" + i, "f" + i);
    }
    DynomiteNode frozen = cluster.node("rack1", 0);
    frozen.pause();
    AtomicInteger slow = new AtomicInteger();
    try {
      for (int i = 0; i < 200; i++) {
        long start = System.nanoTime();
        assertThat(client.get("muxf:" + i)).isEqualTo("f" + i);
        if (System.nanoTime() - start > Duration.ofMillis(1300).toNanos()) {
          slow.incrementAndGet();
        }
      }
    } finally {
      frozen.resume();
    }
    assertThat(slow.get())
        .as("reads longer than the 1200 ms deadline (+100 ms)")
        .isZero();
  }

  /**
   * The same with a consistency level chosen per call: such calls travel on connections that send
   * DYNO_CONFIG when they open. Opening one to the frozen node (its kernel still accepts the TCP
   * connection) must be bounded by the call's time too, not by the socket timeout. A client of its
   * own: its health view starts clean, so its first reads do go to the frozen owner.
   */
  @Test
  void aFrozenNodesReadsWithAConsistencyLevelPerCallFailOverWithinTheDeadline() throws Exception {
    Registry registry = new DefaultRegistry();
    try (DynoJedisClient own = DynoJedisClient.builder()
        .applicationName("mux-level")
        .registry(registry)
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .transport(Transport.MULTIPLEXED)
        .config(DynoConfig.builder()
            .maxConnsPerHost(64)
            .socketTimeout(Duration.ofMillis(1500))
            .requestDeadline(Duration.ofMillis(1200))
            .build())
        .build()) {
      DynoJedisClient dcOne =
          own.withOptions(CallOptions.defaults().withConsistency(ConsistencyLevel.DC_ONE));
      DynomiteNode frozen = cluster.node("rack1", 0);
      List<String> keys = new ArrayList<>();
      for (int i = 0; keys.size() < 50; i++) {
        if (own.topology()
            .replicas("muxfl:" + i)
            .get(0)
            .id()
            .equals(frozen.host().id())) {
          keys.add("muxfl:" + i);
        }
      }
      for (String k : keys) {
        dcOne.set(k, "v" + k); // opens DC_ONE connections to the frozen node-to-be
      }
      frozen.pause();
      List<Long> slowMs = new ArrayList<>();
      try {
        for (String k : keys) {
          long start = System.nanoTime();
          assertThat(dcOne.get(k)).isEqualTo("v" + k);
          long ms = (System.nanoTime() - start) / 1_000_000;
          if (ms > 1300) {
            slowMs.add(ms);
          }
        }
      } finally {
        frozen.resume();
      }
      assertThat(registry
              .counters()
              .filter(c -> c.id().name().equals("dyno.op.failovers"))
              .mapToLong(c -> c.count())
              .sum())
          .as("reads that failed over from the frozen owner")
          .isGreaterThanOrEqualTo(2);
      assertThat(slowMs)
          .as("DC_ONE-per-call reads longer than the 1200 ms deadline (+100 ms), in ms")
          .isEmpty();
    }
  }
}
