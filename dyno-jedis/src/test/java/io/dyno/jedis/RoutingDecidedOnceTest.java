package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.routing.LoadBalancing;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A request is routed once, by the plan, with the client's load-balancing: plain and pipelined
 * commands go where the same rule sends them, and keyless commands rotate over the local rack.
 * Counted by the requests each companion node received on its client port.
 */
class RoutingDecidedOnceTest {
  static CompanionCluster cluster;

  @BeforeAll
  static void start() {
    cluster = CompanionCluster.builder()
        .racks(2)
        .nodesPerRack(2)
        .backend(Backend.MEMORY)
        .start();
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @BeforeEach
  void reset() {
    cluster.nodes().forEach(CompanionNode::resetStats);
  }

  DynoJedisClient client(LoadBalancing lb) {
    return DynoJedisClient.builder()
        .applicationName("routing-" + lb)
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .config(DynoConfig.builder().lbStrategy(lb).minConnsPerHost(0).build())
        .build();
  }

  static long requests(CompanionNode n) {
    return n.stats().requests();
  }

  @Test
  void keylessCommandsRotateOverTheLocalRacksNodes() {
    try (DynoJedisClient client = client(LoadBalancing.TOKEN_AWARE)) {
      reset();
      for (int i = 0; i < 40; i++) {
        assertThat(client.ping()).isEqualTo("PONG");
      }
      List<CompanionNode> local = cluster.nodes("rack1");
      assertThat(requests(local.get(0))).as("first local node").isBetween(15L, 25L);
      assertThat(requests(local.get(1))).as("second local node").isBetween(15L, 25L);
      assertThat(cluster.nodes("rack2")).allSatisfy(n -> assertThat(requests(n)).isZero());
    }
  }

  @Test
  void tokenAwarePipelinesAndPlainCallsBothGoToTheKeysOwner() {
    try (DynoJedisClient client = client(LoadBalancing.TOKEN_AWARE)) {
      client.set("route:k", "v");
      CompanionNode owner = cluster.ownerOf("rack1", "route:k");
      CompanionNode other =
          cluster.nodes("rack1").stream().filter(n -> n != owner).findFirst().orElseThrow();
      reset();
      for (int i = 0; i < 10; i++) {
        assertThat(client.get("route:k")).isEqualTo("v");
      }
      DynoPipeline p = client.pipelined();
      for (int i = 0; i < 10; i++) {
        p.get("route:k");
      }
      assertThat(p.syncAndReturnAll()).hasSize(10).containsOnly("v");
      assertThat(requests(owner)).isEqualTo(20);
      assertThat(requests(other)).isZero();
    }
  }

  @Test
  void roundRobinSpreadsPlainAndPipelinedCallsAlike() {
    try (DynoJedisClient client = client(LoadBalancing.ROUND_ROBIN)) {
      client.set("route:rr", "v");
      List<CompanionNode> local = cluster.nodes("rack1");
      reset();
      for (int i = 0; i < 20; i++) {
        assertThat(client.get("route:rr")).isEqualTo("v");
      }
      long plainA = requests(local.get(0));
      long plainB = requests(local.get(1));
      assertThat(plainA).as("plain GETs on each local node").isBetween(5L, 15L);
      assertThat(plainA + plainB).isEqualTo(20);
      reset();
      for (int i = 0; i < 20; i++) {
        DynoPipeline p = client.pipelined();
        p.get("route:rr");
        assertThat(p.syncAndReturnAll()).containsExactly("v");
      }
      assertThat(requests(local.get(0))).as("pipelined GETs on each local node").isBetween(5L, 15L);
      assertThat(requests(local.get(0)) + requests(local.get(1))).isEqualTo(20);
    }
  }
}
