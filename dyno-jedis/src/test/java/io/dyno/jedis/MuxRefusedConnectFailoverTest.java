package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Registry;
import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.metrics.DynoMetrics;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Regression (issue #22): the multiplexed transport reported a refused connect to a stopped node as
 * a sent command, so a non-idempotent INCR whose local owner was stopped failed instead of moving
 * to another rack, where pooled sockets (whose borrow fails first) moved it. Nothing of a command
 * leaves before its connection is open, so it is now reported unsent. (Since issue #23 a
 * non-idempotent write whose owner is unreachable moves to another rack only with
 * {@code failoverNonIdempotentWrites}.)
 */
class MuxRefusedConnectFailoverTest {

  @Test
  void incrWhoseLocalOwnerIsStoppedRunsOnceOnAnotherRack() {
    Registry registry = new DefaultRegistry();
    String app = "refused";
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(3)
            .nodesPerRack(2)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = DynoJedisClient.builder()
            // An unreachable owner: failing its non-idempotent write over is what the setting
            // allows.
            .config(DynoConfig.builder()
                .applicationName(app)
                .failoverNonIdempotentWrites(true)
                .build())
            .hostSupplier(cluster.hostSupplier())
            .tokenMapSupplier(cluster.tokenMapSupplier())
            .localRack("rack1")
            .transport(Transport.MULTIPLEXED)
            .registry(registry)
            .build()) {
      String key = CallListenerFailoverTest.keyFailingOverToRack2(client, "refused:");
      client.set(key, "41"); // the client now holds a connection to the local owner
      try (Jedis rack2 = new Jedis("127.0.0.1", cluster.ownerOf("rack2", key).clientPort())) {
        await().atMost(Duration.ofSeconds(10)).until(() -> "41".equals(rack2.get(key)));
      }
      CompanionNode owner = cluster.ownerOf("rack1", key);
      owner.stop();
      // An idempotent read first: whatever the client still held to the stopped node is found gone.
      assertThat(client.get(key)).isEqualTo("41");

      assertThat(client.incr(key)).as("INCR ran once, on another rack").isEqualTo(42L);

      try (Jedis rack2 = new Jedis("127.0.0.1", cluster.ownerOf("rack2", key).clientPort())) {
        assertThat(rack2.get(key)).isEqualTo("42");
      }
      assertThat(registry
              .counter(registry
                  .createId(DynoMetrics.OP_FAILOVERS)
                  .withTags("app", app, "command", "INCR", "rack", "rack2"))
              .count())
          .isEqualTo(1);
    }
  }
}
