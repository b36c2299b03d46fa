package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.exec.CallOptions;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;

/** Per-call consistency through {@code withOptions}: a view sharing the client's pools. */
class CallOptionsViewTest {

  @Test
  void aQuorumViewFailsWhenTwoRacksAreDownWhileTheDefaultDcOneClientKeepsWorking() {
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(3)
            .nodesPerRack(1)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = DynoJedisClient.builder()
            .applicationName("views")
            .hostSupplier(cluster.hostSupplier())
            .tokenMapSupplier(cluster.tokenMapSupplier())
            .localRack("rack1")
            .build()) {
      DynoJedisClient quorum =
          client.withOptions(CallOptions.defaults().withConsistency(ConsistencyLevel.DC_QUORUM));
      assertThat(quorum.callOptions().consistency()).isEqualTo(ConsistencyLevel.DC_QUORUM);
      assertThat(quorum.set("v:1", "a")).isEqualTo("OK");
      assertThat(quorum.get("v:1")).isEqualTo("a");

      cluster.node("rack2", 0).stop();
      cluster.node("rack3", 0).stop();
      assertThat(client.get("v:1")).isEqualTo("a"); // DC_ONE: the local rack answers alone
      assertThatThrownBy(() -> quorum.get("v:1"))
          .isInstanceOf(JedisConnectionException.class)
          .isInstanceOf(DynoFailure.class);
      quorum.close(); // a view: closing it leaves the client working
      assertThat(client.get("v:1")).isEqualTo("a");
      for (CompanionNode n : cluster.nodes("rack1")) {
        assertThat(n.stats().forwarded()).isZero();
      }
    }
  }
}
