package io.dyno.e2e.containers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.Backend;
import io.dyno.companion.containers.ContainerAssumptions;
import io.dyno.companion.containers.ContainerCluster;
import io.dyno.companion.containers.ContainerNode;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * End-to-end checks against REAL Dynomite in containers, with generated {@code dynomite.yml} files:
 * the image {@code -Ddyno.image.dynomite=<image>} names (scripts/test.sh builds
 * {@code dyno/dynomite:local} from the binary DYNO_DYNOMITE_BINARY names and passes it). Skipped,
 * with that hint, when none is given; scripts/test.sh fails the run on a skip when one is.
 */
class RealDynomiteContainerTest {
  private static ContainerCluster cluster;
  private static RuntimeException startFailure; // one failed start fails every test, fast

  /**
   * Assumed per test (not in {@code @BeforeAll}) so every skipped test is reported with the
   * reason; the cluster itself starts once, for the whole class.
   */
  @BeforeEach
  void clusterRunning() {
    ContainerAssumptions.assumeDynomiteAvailable();
    if (startFailure != null) throw startFailure;
    if (cluster == null) {
      try {
        cluster = ContainerCluster.builder()
            .server(ContainerCluster.Server.DYNOMITE)
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

  /** A test that froze a node leaves the cluster replicating again (Dynomite reconnects its peers in seconds). */
  @AfterEach
  void replicatingAgain() {
    if (cluster != null) cluster.awaitReplicating(Duration.ofSeconds(30));
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) cluster.close();
  }

  @Test
  void aSetThroughOneRackIsReplicatedToEveryRack() {
    String key = "e2e:" + UUID.randomUUID();
    try (Jedis j = Clients.jedis(cluster.node("rack1", 0).clientPort())) {
      assertThat(j.set(key, "v1")).isEqualTo("OK");
    }
    for (ContainerNode n : cluster.nodes()) {
      await(key + " in the redis of " + n)
          .atMost(Duration.ofSeconds(10))
          .until(() -> "v1".equals(Clients.getOrNull(n.redisPort(), key)));
    }
  }

  @Test
  void aPausedDynomiteTimesOutAClientWithA500msSocketTimeout() {
    ContainerNode node = cluster.node("rack2", 0);
    node.pause();
    try (Jedis j = Clients.jedis(node.clientPort(), 500)) {
      assertThatThrownBy(() -> j.get("k"))
          .isInstanceOf(JedisConnectionException.class)
          .hasRootCauseInstanceOf(SocketTimeoutException.class);
    } finally {
      node.unpause();
    }
    try (Jedis j = Clients.jedis(node.clientPort(), 500)) {
      assertThat(j.set("k", "v")).isEqualTo("OK");
    }
  }
}
