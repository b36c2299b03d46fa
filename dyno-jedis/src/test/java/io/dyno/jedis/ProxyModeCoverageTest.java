package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * The command-coverage suite through the companion server (Dynomite-compatible proxy) with one real
 * redis-server per node, 3 racks x 2 nodes. After every family: zero requests forwarded between
 * nodes, i.e. every command went straight to its owner.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProxyModeCoverageTest extends CommandCoverageContract {
  private CompanionCluster cluster;
  private DynoJedisClient client;

  @BeforeAll
  void start() {
    cluster = CompanionCluster.builder()
        .racks(3)
        .nodesPerRack(2)
        .backend(Backend.REDIS)
        .hashtag("{}")
        .start();
    client = DynoJedisClient.builder()
        .applicationName("coverage-proxy")
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .hashtag("{}")
        .build();
  }

  @AfterAll
  void stop() {
    if (client != null) {
      client.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @BeforeEach
  void resetCounters() {
    cluster.nodes().forEach(CompanionNode::resetStats);
  }

  @Override
  DynoJedisClient client() {
    return client;
  }

  @Override
  void afterEachCommandFamily() {
    long requests = 0;
    for (CompanionNode n : cluster.nodes()) {
      assertThat(n.stats().forwarded()).as("requests forwarded by " + n.host()).isZero();
      requests += n.stats().requests();
    }
    if (refusedWithoutTraffic) {
      assertThat(requests)
          .as("requests seen by the servers for refused commands")
          .isZero();
    } else {
      assertThat(requests).as("requests seen by the servers").isPositive();
    }
    cluster.flushAll();
  }
}
