package io.dyno.recipes.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.CompanionCluster;
import io.dyno.core.Host;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.recipes.testing.Clusters;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/** The lock fed by a Dyno client's topology: voters are the cluster nodes' own redis-servers, one per rack. */
class QuorumLockOnClusterTest {

  @Test
  void votersComeFromTheClientTopologyOnePerRackAndHoldTheLockKeys() {
    try (CompanionCluster cluster = Clusters.sixNodes();
        DynoJedisClient client = Clusters.client(cluster, "lock-topology", "rack1");
        QuorumLock lock = QuorumLock.builder().topology(client::topology).build()) {
      List<Host> voters = lock.votersFor("nightly-report");
      assertThat(voters.stream().map(Host::rack).collect(Collectors.toSet()))
          .containsExactlyInAnyOrder("rack1", "rack2", "rack3");
      try (LockLease lease =
          lock.acquire("nightly-report", Duration.ofSeconds(10), Duration.ZERO)) {
        assertThat(lease.voters()).isEqualTo(voters);
        int holding = 0; // acquire returns once a majority granted and raised the fence
        for (Host v : voters) {
          try (Jedis direct = new Jedis(
              new HostAndPort("127.0.0.1", v.datastorePort()),
              DefaultJedisClientConfig.builder().resp2().build())) {
            String fence = direct.get("dyno:lock:{nightly-report}:fence");
            if (direct.get("dyno:lock:{nightly-report}") != null
                && fence != null
                && Long.parseLong(fence) == lease.fencingToken()) {
              holding++;
            }
          }
        }
        assertThat(holding).isGreaterThanOrEqualTo(2);
      }
    }
  }
}
