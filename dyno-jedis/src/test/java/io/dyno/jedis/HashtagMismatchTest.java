package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.topology.ClusterDescribeTokenMapSupplier;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A client whose hash tag differs from the cluster's, read from Dynomite's /cluster_describe (which
 * does not carry the tag), is refused at build in both directions, naming the setting: it would
 * otherwise send multi-key commands over tagged keys to a node that does not own them all and give
 * wrong answers (a SINTER that finds nothing). A matching client builds and answers right.
 */
class HashtagMismatchTest {
  private static CompanionCluster cluster(String hashtag, int nodesPerRack) {
    return cluster(hashtag, nodesPerRack, Backend.MEMORY);
  }

  private static CompanionCluster cluster(String hashtag, int nodesPerRack, Backend backend) {
    return CompanionCluster.builder()
        .racks(2)
        .nodesPerRack(nodesPerRack)
        .backend(backend)
        .hashtag(hashtag)
        .start();
  }

  private static DynoJedisClient client(CompanionCluster cluster, String path, String hashtag) {
    DynoJedisClientBuilder b = DynoJedisClient.builder()
        .applicationName("hashtag-probe")
        .tokenMapSupplier(ClusterDescribeTokenMapSupplier.builder()
            .endpoint(cluster.nodes().get(0).adminUrl() + path)
            .build())
        .localRack("rack1");
    if (hashtag != null) {
      b.hashtag(hashtag);
    }
    return b.build();
  }

  private static DynoJedisClient client(CompanionCluster cluster, String hashtag) {
    return client(cluster, "/cluster_describe", hashtag);
  }

  @Test
  void aClientTagTheClusterLacksIsRefusedNamingTheSetting() {
    try (CompanionCluster cluster = cluster(null, 2)) {
      assertThatThrownBy(() -> client(cluster, "{}").close())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("DynoJedisClient hashtag-probe: hash tag mismatch: this client is"
              + " configured with hashtag(\"{}\") but the cluster does not hash by it")
          .hasMessageContaining("Keys in the script cannot span multiple nodes")
          .hasMessageContaining("dyno:hashtag-probe:{t}")
          .hasMessageContaining("Remove hashtag(...) from the client, or set hash_tag: \"{}\"");
      assertNoProbeKeyAnywhere(cluster);
    }
  }

  /** Redis behind the nodes runs the probe's script, as behind a real Dynomite. */
  @Test
  void aClusterTagTheClientLacksIsRefusedNamingTheSetting() {
    try (CompanionCluster cluster = cluster("{}", 2, Backend.REDIS)) {
      assertThatThrownBy(() -> client(cluster, null).close())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("hash tag mismatch: the cluster hashes keys by the hash tag \"{}\"")
          .hasMessageContaining("answered \"1\" to EVAL over dyno:hashtag-probe:{t}")
          .hasMessageContaining("Set hashtag(\"{}\") on the client");
      assertNoProbeKeyAnywhere(cluster);
    }
  }

  /** The multi-key answer that a mismatch would get wrong, right when the tags match. */
  @Test
  void matchingTagsBuildAndMultiKeyCommandsAnswerRight() {
    try (CompanionCluster cluster = cluster("{}", 2);
        DynoJedisClient dyno = client(cluster, "{}")) {
      dyno.sadd("{user1}:a", "a", "b");
      dyno.sadd("{user1}:d", "b", "c");
      assertThat(dyno.sinter("{user1}:a", "{user1}:d")).containsExactly("b");
      assertNoProbeKeyAnywhere(cluster);
    }
    try (CompanionCluster cluster = cluster(null, 2);
        DynoJedisClient dyno = client(cluster, null)) {
      dyno.set("k", "v");
      assertThat(dyno.get("k")).isEqualTo("v");
    }
  }

  /** Dynomite-manager's shape carries the tag: the refresher compares it, no probe is needed. */
  @Test
  void theManagersShapeGivesTheTagWhichTheClientAdopts() {
    try (CompanionCluster cluster = cluster("{}", 2);
        DynoJedisClient dyno =
            client(cluster, ClusterDescribeTokenMapSupplier.MANAGER_PATH, null)) {
      assertThat(dyno.topology().hasher().hashtag()).isEqualTo("{}");
    }
  }

  /** One node per rack: every key of a rack is on one node, so no tag can split a command. */
  @Test
  void aClusterWithOneNodePerRackNeedsNoProbe() {
    try (CompanionCluster cluster = cluster(null, 1);
        DynoJedisClient dyno = client(cluster, "{}")) {
      dyno.sadd("{user1}:a", "a", "b");
      dyno.sadd("{user1}:d", "b", "c");
      assertThat(dyno.sinter("{user1}:a", "{user1}:d")).containsExactly("b");
    }
  }

  /** The probe names its keys in an EVAL only: none is ever stored. */
  private static void assertNoProbeKeyAnywhere(CompanionCluster cluster) {
    for (CompanionNode n : cluster.nodes()) {
      try (Jedis j = new Jedis(
          new HostAndPort("127.0.0.1", n.clientPort()),
          DefaultJedisClientConfig.builder()
              .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
              .build())) {
        Set<String> keys = j.keys("dyno:hashtag-probe:*");
        assertThat(keys).as("probe keys on %s", n).isEmpty();
      }
    }
  }
}
