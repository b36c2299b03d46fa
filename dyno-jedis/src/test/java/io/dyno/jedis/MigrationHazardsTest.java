package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.netflix.archaius.config.DefaultSettableConfig;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.config.ArchaiusDynoConfig;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.topology.ClusterDescribeTokenMapSupplier;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Hazards for users coming from Netflix's Dyno, handled against the companion: live Archaius
 * changes reach a running DynoJedisClient; the hash tag Dynomite-manager reports is used, or a
 * different configured one refused.
 */
class MigrationHazardsTest {

  @Test
  void anArchaiusChangeReachesARunningClient() throws Exception {
    DefaultSettableConfig props = new DefaultSettableConfig();
    try (CompanionCluster cluster =
            CompanionCluster.builder().racks(1).nodesPerRack(1).start();
        ArchaiusDynoConfig live = new ArchaiusDynoConfig(
            props, DynoConfig.builder().applicationName("live").build());
        DynoJedisClient client = DynoJedisClient.builder()
            .config(live)
            .hostSupplier(cluster.hostSupplier())
            .tokenMapSupplier(cluster.tokenMapSupplier())
            .localRack(cluster.racks().get(0))
            .build()) {
      client.set("k", "v");
      CompanionNode node = cluster.nodes().get(0);
      node.delayReplies(Duration.ofMillis(400));
      assertThat(client.get("k")).isEqualTo("v"); // no deadline yet: a slow reply is waited for

      props.setProperty("dyno.live.connection.requestDeadline", "100");
      assertThatThrownBy(() -> client.get("k"))
          .isInstanceOf(DynoDeadlineExceededException.class)
          .hasMessageContaining("100 ms");

      // A bad value elsewhere does not hold back the next live change.
      props.setProperty("dyno.live.config.compressionThreshold", "huge");
      props.setProperty("dyno.live.connection.requestDeadline", "0");
      assertThat(client.get("k")).isEqualTo("v");
      node.clearFaults();
    }
  }

  @Test
  void theHashtagDynomiteManagerReportsIsUsedWhenTheBuilderSetsNone() throws Exception {
    try (CompanionCluster cluster =
            CompanionCluster.builder().racks(1).nodesPerRack(3).hashtag("{}").start();
        ClusterDescribeTokenMapSupplier describe = ClusterDescribeTokenMapSupplier.builder()
            .endpoint(
                cluster.nodes().get(0).adminUrl() + ClusterDescribeTokenMapSupplier.MANAGER_PATH)
            .build();
        DynoJedisClient client = DynoJedisClient.builder()
            .applicationName("tagged")
            .hostSupplier(describe)
            .tokenMapSupplier(describe)
            .localRack(cluster.racks().get(0))
            .build()) {
      assertThat(client.topology().hasher().hashtag()).isEqualTo("{}");
      String rack = cluster.racks().get(0);
      for (int i = 0; i < 30; i++) {
        String key = "{user" + i + "}:profile";
        // The client's first choice is the node the cluster itself says owns the key.
        assertThat(client.topology().replicas(key).get(0).port())
            .as(key)
            .isEqualTo(cluster.ownerOf(rack, key).clientPort());
      }
      // Keys under one tag are co-located, so a multi-key command is served (not refused as
      // cross-node).
      client.sadd("{u7}:a", "x", "y");
      client.sadd("{u7}:b", "y", "z");
      assertThat(client.sinter("{u7}:a", "{u7}:b")).containsExactly("y");
    }
  }

  @Test
  void aHashtagDifferentFromTheClustersIsRefusedAtBuild() throws Exception {
    try (CompanionCluster cluster =
            CompanionCluster.builder().racks(1).nodesPerRack(2).hashtag("{}").start();
        ClusterDescribeTokenMapSupplier describe = ClusterDescribeTokenMapSupplier.builder()
            .endpoint(
                cluster.nodes().get(0).adminUrl() + ClusterDescribeTokenMapSupplier.MANAGER_PATH)
            .build()) {
      assertThatThrownBy(() -> DynoJedisClient.builder()
              .applicationName("mismatch")
              .hostSupplier(describe)
              .tokenMapSupplier(describe)
              .hashtag("[]")
              .localRack(cluster.racks().get(0))
              .build())
          .hasMessageContaining("hash tag mismatch")
          .hasMessageContaining("\"[]\"")
          .hasMessageContaining("\"{}\"")
          .as("waiting for nodes would not mend a configuration error")
          .hasMessageNotContaining("failOnStartupIfNoHosts");
    }
  }
}
