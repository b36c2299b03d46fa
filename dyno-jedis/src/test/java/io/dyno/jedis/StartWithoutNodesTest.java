package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.core.DynoException;
import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.topology.ClusterDescribeTokenMapSupplier;
import io.dyno.core.topology.StaticHostSupplier;
import io.dyno.core.topology.StaticTokenMapSupplier;
import io.dyno.testsupport.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code failOnStartupIfNoHosts}: a client whose cluster does not answer yet (its token map is read
 * from the nodes' own /cluster_describe, so nothing at all is known) starts when the setting is
 * false and serves once the nodes come up; when true, the build fails naming what it asked.
 */
class StartWithoutNodesTest {

  @Test
  void withFailOnStartupFalseTheClientStartsWithNoNodeAndServesOnceTheyAppear() {
    int base = CompanionCluster.freeBasePort(1);
    Host node = Host.builder("127.0.0.1", base).rack("rack1").datacenter("dc1").build();
    try (DynoJedisClient client = client(node, base, false)) {
      assertThat(client.topology().hosts()).as("nothing known yet").isEmpty();
      assertThatThrownBy(() -> client.get("k")).isInstanceOf(DynoNoAvailableHostsException.class);
      try (CompanionCluster cluster = CompanionCluster.builder()
          .racks(1)
          .nodesPerRack(1)
          .basePort(base)
          .backend(Backend.MEMORY)
          .start()) {
        await()
            .atMost(Duration.ofSeconds(20))
            .ignoreExceptions()
            .until(() -> "OK".equals(client.set("k", "v")));
        assertThat(client.get("k")).isEqualTo("v");
        assertThat(cluster.node("rack1", 0).clientPort()).isEqualTo(base);
      }
    }
  }

  @Test
  void withFailOnStartupTrueTheBuildFailsNamingTheNodesItAsked() {
    int base = CompanionCluster.freeBasePort(1);
    Host node = Host.builder("127.0.0.1", base).rack("rack1").datacenter("dc1").build();
    assertThatThrownBy(() -> client(node, base, true).close())
        .isInstanceOf(DynoException.class)
        .hasMessageContaining("failOnStartupIfNoHosts")
        .hasMessageContaining("127.0.0.1:" + (base + 1000));
  }

  @Test
  void aFixedTopologyWhoseRedisIsNotUpYetIsServedOnceRedisStarts() throws Exception {
    int port = CompanionCluster.freeBasePort(1);
    Host node = Host.builder("127.0.0.1", port)
        .datastorePort(port)
        .rack("rack1")
        .datacenter("dc1")
        .build();
    assertThatThrownBy(() -> staticClient(node, true).close())
        .isInstanceOf(DynoException.class)
        .hasMessageContaining("failOnStartupIfNoHosts")
        .hasMessageContaining(String.valueOf(port));
    try (DynoJedisClient client = staticClient(node, false)) {
      assertThatThrownBy(() -> client.get("k"))
          .isInstanceOf(DynoNodeFailureException.class)
          .hasMessageContaining("cannot connect to 127.0.0.1:" + port);
      try (RedisServer redis = RedisServer.builder().port(port).start()) {
        await()
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .until(() -> "OK".equals(client.set("k", "v")));
        assertThat(client.get("k")).isEqualTo("v");
      }
    }
  }

  private static DynoJedisClient staticClient(Host node, boolean failOnStartup) {
    return DynoJedisClient.builder()
        .config(DynoConfig.builder()
            .applicationName("no-redis")
            .datastoreMode(true)
            .failOnStartupIfNoHosts(failOnStartup)
            .startupTimeout(Duration.ofMillis(500))
            .connectTimeout(Duration.ofMillis(200))
            .build())
        .hostSupplier(StaticHostSupplier.of(node))
        .tokenMapSupplier(StaticTokenMapSupplier.of(new HostToken(0, node)))
        .localRack("rack1")
        .build();
  }

  private static DynoJedisClient client(Host node, int base, boolean failOnStartup) {
    return DynoJedisClient.builder()
        .config(DynoConfig.builder()
            .applicationName("no-nodes")
            .failOnStartupIfNoHosts(failOnStartup)
            .startupTimeout(Duration.ofMillis(500))
            .connectTimeout(Duration.ofMillis(200))
            .build())
        .hostSupplier(StaticHostSupplier.of(node))
        .tokenMapSupplier(ClusterDescribeTokenMapSupplier.builder()
            .askKnownHosts(base + 1000, "/cluster_describe")
            .connectTimeout(Duration.ofMillis(200))
            .requestTimeout(Duration.ofMillis(500))
            .build())
        .localRack("rack1")
        .topologyRefreshPeriod(Duration.ofMillis(200))
        .build();
  }
}
