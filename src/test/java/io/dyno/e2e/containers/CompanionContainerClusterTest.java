package io.dyno.e2e.containers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.Backend;
import io.dyno.companion.containers.ContainerAssumptions;
import io.dyno.companion.containers.ContainerCluster;
import io.dyno.companion.containers.ContainerNode;
import io.dyno.core.Host;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A 3-rack companion cluster where every node and every node's redis-server is its own container:
 * the faults here are real (a frozen process, a killed process), not simulated in the server.
 */
class CompanionContainerClusterTest {
  private static final Duration REPLICATION_BOUND = Duration.ofSeconds(10);
  private static ContainerCluster cluster;
  private static RuntimeException startFailure; // one failed start fails every test, fast

  /**
   * Assumed per test (not in {@code @BeforeAll}) so every skipped test is reported with the
   * reason; the cluster itself starts once, for the whole class.
   */
  @BeforeEach
  void clusterRunning() {
    ContainerAssumptions.assumeImagesAvailable(ContainerCluster.Server.COMPANION, Backend.REDIS);
    if (startFailure != null) throw startFailure;
    if (cluster == null) {
      try {
        cluster = ContainerCluster.builder()
            .racks(3)
            .nodesPerRack(1)
            .backend(Backend.REDIS)
            .start();
      } catch (RuntimeException e) {
        startFailure = e;
        throw e;
      }
    }
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) cluster.close();
  }

  /** Each test leaves every process running and thawed, and the cluster replicating, even when it fails half-way. */
  @AfterEach
  void healEveryProcess() {
    if (cluster == null) return;
    for (ContainerNode n : cluster.nodes()) {
      if (n.server().isPaused()) n.unpause();
      if (!n.isRunning()) n.restart();
      if (!n.redis().isRunning()) n.redis().restart();
    }
    cluster.awaitReplicating(Duration.ofSeconds(30));
  }

  @Test
  void aSetThroughOneRackIsReplicatedToTheRedisOfEveryRack() {
    String key = "e2e:" + UUID.randomUUID();
    ContainerNode writer = cluster.node("rack1", 0);
    try (Jedis j = Clients.jedis(writer.clientPort())) {
      assertThat(j.set(key, "v1")).isEqualTo("OK");
      assertThat(j.get(key)).isEqualTo("v1");
    }
    for (ContainerNode n : cluster.nodes()) {
      // Read each rack's own redis-server directly: the copy really is in that process.
      await(key + " is in the redis of " + n)
          .atMost(REPLICATION_BOUND)
          .until(() -> "v1".equals(Clients.getOrNull(n.redisPort(), key)));
      await(key + " is readable through " + n)
          .atMost(REPLICATION_BOUND)
          .until(() -> "v1".equals(Clients.getOrNull(n.clientPort(), key)));
    }
  }

  @Test
  void aPausedNodeTimesOutAClientWithA500msSocketTimeoutAndServesAgainOnceUnpaused() {
    ContainerNode node = cluster.node("rack2", 0);
    String key = "e2e:" + UUID.randomUUID();
    try (Jedis j = Clients.jedis(node.clientPort())) {
      j.set(key, "before-pause");
    }

    node.pause();
    assertThat(node.server().isPaused()).isTrue();
    try (Jedis j = Clients.jedis(node.clientPort(), 500)) {
      long start = System.nanoTime();
      // The kernel still accepts the connection (the listener exists); nothing ever answers.
      assertThatThrownBy(() -> j.get(key))
          .isInstanceOf(JedisConnectionException.class)
          .hasRootCauseInstanceOf(SocketTimeoutException.class);
      long elapsedMs = (System.nanoTime() - start) / 1_000_000;
      assertThat(elapsedMs).isBetween(450L, 3_000L);
    }

    node.unpause();
    try (Jedis j = Clients.jedis(node.clientPort(), 500)) {
      assertThat(j.get(key)).isEqualTo("before-pause");
    }
  }

  @Test
  void aKilledNodeLeavesTheOtherRacksServingAndComesBackOnItsPortsAfterRestart() throws Exception {
    ContainerNode victim = cluster.node("rack3", 0);
    String key = "e2e:" + UUID.randomUUID();
    try (Jedis j = Clients.jedis(victim.clientPort())) {
      j.set(key, "survives");
    }
    await(key + " replicated to every rack")
        .atMost(REPLICATION_BOUND)
        .until(() -> cluster.nodes().stream()
            .allMatch(n -> "survives".equals(Clients.getOrNull(n.redisPort(), key))));

    victim.kill();
    assertThat(victim.isRunning()).isFalse();
    assertThatThrownBy(() -> {
          try (Jedis j = Clients.jedis(victim.clientPort(), 500)) {
            j.get(key);
          }
        })
        .isInstanceOf(JedisConnectionException.class);
    List<Host> live = cluster.hostSupplier().getHosts();
    assertThat(live).filteredOn(h -> h.rack().equals("rack3")).allMatch(h -> !h.isUp());
    assertThat(live).filteredOn(h -> !h.rack().equals("rack3")).allMatch(Host::isUp);

    for (String rack : List.of("rack1", "rack2")) {
      try (Jedis j = Clients.jedis(cluster.node(rack, 0).clientPort())) {
        assertThat(j.get(key)).isEqualTo("survives");
        assertThat(j.set(key + ":" + rack, rack)).isEqualTo("OK");
        assertThat(j.get(key + ":" + rack)).isEqualTo(rack);
      }
    }

    victim.restart();
    assertThat(victim.isRunning()).isTrue();
    // Its own redis-server kept running, so the restarted node still has the data.
    await("restarted " + victim + " serves " + key)
        .atMost(REPLICATION_BOUND)
        .until(() -> "survives".equals(Clients.getOrNull(victim.clientPort(), key)));
    assertThat(cluster.hostSupplier().getHosts()).allMatch(Host::isUp);
  }

  @Test
  void aNodeWhoseRedisIsKilledAnswersTheDatastoreErrorAndRecoversWhenRedisRestarts() {
    ContainerNode node = cluster.node("rack1", 0);
    String key = "e2e:" + UUID.randomUUID();

    node.redis().kill();
    try (Jedis j = Clients.jedis(node.clientPort())) {
      assertThatThrownBy(() -> j.get(key))
          .isInstanceOf(JedisDataException.class)
          .hasMessageContaining("Storage: Datastore refused connection");
    }

    node.redis().restart();
    await(node + " serves again after its redis restarted")
        .atMost(REPLICATION_BOUND)
        .until(() -> {
          try (Jedis j = Clients.jedis(node.clientPort())) {
            return "OK".equals(j.set(key, "back")) && "back".equals(j.get(key));
          } catch (RuntimeException stillDown) {
            return false;
          }
        });
  }

  @Test
  void theClusterDescribesItsNodesAsHostsAndTokens() throws Exception {
    assertThat(cluster.racks()).containsExactly("rack1", "rack2", "rack3");
    assertThat(cluster.hosts()).hasSize(3).allSatisfy(h -> {
      assertThat(h.address()).isEqualTo("127.0.0.1");
      assertThat(h.datastorePort()).isPositive();
    });
    assertThat(cluster.hostTokens()).extracting(t -> t.token()).containsOnly(0L);
    Host one = cluster.node("rack2", 0).host();
    assertThat(cluster.tokenMapSupplier().getTokens(List.of(one)))
        .singleElement()
        .satisfies(t -> assertThat(t.host()).isEqualTo(one));
  }
}
