package io.dyno.companion;

import static io.dyno.companion.Clients.jedis;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;

@ExtendWith(CompanionClusterExtension.class)
@CompanionClusterConfig(racks = 1, nodesPerRack = 2, hashtag = "{}")
class HashtagTest {
  @Test
  void keysWithTheSameTagLiveOnTheSameNode(CompanionCluster cluster) {
    // without the tag {user1}:a (1084432932 -> token 2147483647) and {user1}:d (4027579976 -> token
    // 0) split;
    // with it both hash as "user1" (766992236 -> token 2147483647)
    CompanionNode owner = cluster.ownerOf("rack1", "user1");
    assertThat(owner.token()).isEqualTo(2147483647L);
    assertThat(cluster.ownerOf("rack1", "{user1}:d")).isSameAs(owner);
    CompanionNode other = cluster.node("rack1", 0);
    other.resetStats();
    try (Jedis j = jedis(other)) {
      j.set("{user1}:a", "1");
      j.set("{user1}:d", "2");
      assertThat(j.mget("{user1}:a", "{user1}:d")).containsExactly("1", "2");
      assertThat(j.keys("*")).isEmpty(); // nothing landed on the non-owner
    }
    // MGET with one owner is not split: 3 forwarded requests, not 4
    assertThat(other.stats().forwarded()).isEqualTo(3);
    try (Jedis j = jedis(owner)) {
      assertThat(j.keys("*")).containsExactlyInAnyOrder("{user1}:a", "{user1}:d");
    }
  }
}
