package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionClusterConfig;
import io.dyno.companion.CompanionClusterExtension;
import io.dyno.companion.CompanionNode;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;

/**
 * What a node missed while it was away must not become what the client reads or what INCR hands
 * out (issue #23), on a companion cluster over real redis-server, on both transports: an INCR is
 * refused rather than applied in another rack while its local owner is out of rotation; a SET that
 * went to another rack is read back from that rack after the owner returns (whose Redis still holds
 * the old value), until a SET sent home to the returned owner brings the key back to the local
 * rack; a write the local Redis refused says it may have been applied in the other racks.
 */
@ExtendWith(CompanionClusterExtension.class)
@CompanionClusterConfig(racks = 3, nodesPerRack = 2, backend = Backend.REDIS)
class NodeAwayWritesTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @ParameterizedTest
  @EnumSource(Transport.class)
  void incrIsRefusedWhileItsOwnerIsAwayAndASetTakenElsewhereIsReadThereAfterItReturns(
      Transport transport, CompanionCluster cluster) {
    try (DynoJedisClient client = client(cluster, transport, "away-" + transport)) {
      String counter = keyOfRack1ThenRack2(client, "away:n:" + transport + ":");
      CompanionNode owner = cluster.ownerOf("rack1", counter);
      String value = keyOwnedBy(client, cluster, owner, "away:v:" + transport + ":");
      client.set(counter, "10");
      client.set(value, "old");
      awaitEverywhere(cluster, counter, "10");
      awaitEverywhere(cluster, value, "old");

      owner.stop();
      Host ownerHost = hostOf(client, owner);
      await().atMost(WAIT).until(() -> {
        assertThat(client.get(value)).isEqualTo("old"); // reads fail over meanwhile
        return !client.isNodeUp(ownerHost);
      });

      assertThatThrownBy(() -> client.incr(counter))
          .isInstanceOf(DynoNodeFailureException.class)
          .hasMessageContaining("INCR on key \"" + counter + "\" was not sent to another rack")
          .hasMessageContaining(ownerHost + " is out of rotation")
          .hasMessageContaining("failoverNonIdempotentWrites=true");
      assertThat(stored(cluster, "rack2", counter)).as("no rack applied it").isEqualTo("10");
      assertThat(stored(cluster, "rack3", counter)).isEqualTo("10");

      client.set(value, "new"); // idempotent: the rack2 owner takes it
      owner.start();
      await().atMost(WAIT).until(() -> client.isNodeUp(ownerHost));
      assertThat(stored(owner, value)).as("the returned node missed the write").isEqualTo("old");

      assertThat(client.get(value)).as("read where it was written").isEqualTo("new");
      assertThat(client.incr(counter)).as("back on the local rack").isEqualTo(11L);
      awaitEverywhere(cluster, counter, "11");

      client.set(value, "newest"); // a whole value: sent home, it makes every rack equal again
      assertThat(stored(owner, value)).as("the returned node took it").isEqualTo("newest");
      awaitEverywhere(cluster, value, "newest");
      try (Jedis redis = new Jedis("127.0.0.1", owner.redisPort())) {
        redis.set(value, "rack1 only"); // behind Dynomite's back: only a rack1 read sees it
      }
      assertThat(client.get(value)).as("the key's reads are home again").isEqualTo("rack1 only");
    }
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void aWriteTheLocalRedisRefusedSaysItMayHaveBeenAppliedInTheOtherRacks(
      Transport transport, CompanionCluster cluster) {
    try (DynoJedisClient client = client(cluster, transport, "refused-" + transport)) {
      String counter = keyOfRack1ThenRack2(client, "oom:n:" + transport + ":");
      CompanionNode owner = cluster.ownerOf("rack1", counter);
      String value = keyOwnedBy(client, cluster, owner, "oom:v:" + transport + ":");
      client.set(counter, "5");
      client.set(value, "old");
      awaitEverywhere(cluster, counter, "5");
      awaitEverywhere(cluster, value, "old");

      try (Jedis redis = new Jedis("127.0.0.1", owner.redisPort())) {
        redis.configSet("maxmemory", "1"); // the local Redis refuses every write: OOM
        try {
          assertThatThrownBy(() -> client.incr(counter))
              .isInstanceOf(DynoNodeFailureException.class)
              .hasMessageContaining("OOM")
              .hasMessageContaining(
                  "INCR may have been applied in rack2, rack3 though not in rack1");
          await().atMost(WAIT).until(() -> "6".equals(stored(cluster, "rack2", counter)));
          assertThat(redis.get(counter)).isEqualTo("5");

          client.set(value, "new"); // idempotent: refused in rack1, taken by rack2
          assertThat(redis.get(value)).isEqualTo("old");
          assertThat(client.get(value)).as("read where it was written").isEqualTo("new");
        } finally {
          redis.configSet("maxmemory", "0");
        }
      }

      owner.backendDown();
      assertThatThrownBy(() -> client.incr(counter))
          .isInstanceOf(DynoNodeFailureException.class)
          .hasMessageContaining("Storage: Datastore refused connection")
          .hasMessageContaining("INCR may have been applied in rack2, rack3");
    }
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void aReturningNodeStaysOutOfRotationUntilWritesThroughItReachTheOtherRacks(
      Transport transport, CompanionCluster cluster) {
    try (DynoJedisClient client = client(cluster, transport, "replication-" + transport)) {
      String key = keyOfRack1ThenRack2(client, "back:" + transport + ":");
      CompanionNode owner = cluster.ownerOf("rack1", key);
      client.set(key, "v");
      awaitEverywhere(cluster, key, "v");
      Host ownerHost = hostOf(client, owner);
      owner.stop();
      await().atMost(WAIT).until(() -> {
        assertThat(client.get(key)).isEqualTo("v");
        return !client.isNodeUp(ownerHost);
      });

      // It answers again, but what is written through it stays in rack1 (a restarted Dynomite
      // before its peer links are up): more than GOOD_PROBES probe periods pass, still out.
      owner.cutPeerLinks();
      owner.start();
      await()
          .during(Duration.ofSeconds(5))
          .atMost(Duration.ofSeconds(8))
          .until(() -> !client.isNodeUp(ownerHost));

      owner.restorePeerLinks();
      await().atMost(WAIT).until(() -> client.isNodeUp(ownerHost));
    }
  }

  private static DynoJedisClient client(CompanionCluster cluster, Transport t, String app) {
    return DynoJedisClient.builder()
        .config(DynoConfig.builder()
            .applicationName(app)
            .healthErrorThreshold(1) // one failure takes a node out of rotation
            .build())
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .transport(t)
        .build();
  }

  /** A key whose candidates are rack1's owner, then rack2's. */
  private static String keyOfRack1ThenRack2(DynoJedisClient client, String prefix) {
    for (int i = 0; ; i++) {
      List<Host> replicas = client.topology().replicas(prefix + i);
      if (replicas.get(0).rack().equals("rack1") && replicas.get(1).rack().equals("rack2")) {
        return prefix + i;
      }
    }
  }

  /** Another key of {@code owner}'s with rack2 as its first failover. */
  private static String keyOwnedBy(
      DynoJedisClient client, CompanionCluster cluster, CompanionNode owner, String prefix) {
    for (int i = 0; ; i++) {
      String key = keyOfRack1ThenRack2(client, prefix + i + ":");
      if (cluster.ownerOf("rack1", key).clientPort() == owner.clientPort()) {
        return key;
      }
    }
  }

  private static Host hostOf(DynoJedisClient client, CompanionNode node) {
    return client.topology().hosts().stream()
        .filter(h -> h.port() == node.clientPort())
        .findFirst()
        .orElseThrow();
  }

  /** What the Redis of {@code rack}'s owner of {@code key} holds. */
  private static String stored(CompanionCluster cluster, String rack, String key) {
    return stored(cluster.ownerOf(rack, key), key);
  }

  private static String stored(CompanionNode node, String key) {
    try (Jedis redis = new Jedis("127.0.0.1", node.redisPort())) {
      return redis.get(key);
    }
  }

  private static void awaitEverywhere(CompanionCluster cluster, String key, String value) {
    for (String rack : cluster.racks()) {
      await().atMost(WAIT).until(() -> value.equals(stored(cluster, rack, key)));
    }
  }
}
