package io.dyno.companion;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;

@ExtendWith(CompanionClusterExtension.class)
@CompanionClusterConfig(racks = 2, nodesPerRack = 1)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CompanionClusterExtensionTest {
  private static CompanionCluster first;

  @Test
  @Order(1)
  void injectsAClusterOfTheConfiguredShape(CompanionCluster cluster) {
    first = cluster;
    assertThat(cluster.racks()).containsExactly("rack1", "rack2");
    assertThat(cluster.hosts())
        .hasSize(2)
        .allMatch(h -> h.isUp() && h.datacenter().equals("dc1"));
    assertThat(cluster.hostTokens()).extracting(t -> t.token()).containsExactly(0L, 0L);
    cluster.node("rack1", 0).stop();
    cluster.node("rack2", 0).delayReplies(Duration.ofSeconds(10));
  }

  @Test
  @Order(2)
  void clearsFaultsAndRestartsNodesBetweenTests(CompanionCluster cluster) {
    assertThat(cluster).isSameAs(first);
    assertThat(cluster.node("rack1", 0).isRunning()).isTrue();
    try (Jedis j = Clients.jedis(cluster.node("rack2", 0).clientPort(), 1000)) {
      assertThat(j.ping()).isEqualTo("PONG");
    }
  }
}
