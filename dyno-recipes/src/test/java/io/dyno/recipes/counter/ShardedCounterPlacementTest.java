package io.dyno.recipes.counter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.routing.KeyHasher;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.UnifiedJedis;

class ShardedCounterPlacementTest {
  // Never connects: building a counter only computes names.
  private final UnifiedJedis unused = RedisClient.create("127.0.0.1", 1);

  /** Index of the evenly spaced token range (of n) owning {@code hash}: (t_{i-1}, t_i], t_i = i * 2^32 / n. */
  private static int rangeOf(long hash, int n) {
    long width = (1L << 32) / n;
    for (int i = 0; i < n; i++) {
      if (hash <= i * width) {
        return i;
      }
    }
    return 0; // beyond the last token: wraps to the first
  }

  @Test
  void withOneShardPerEvenlySpacedRangeEverySubKeyLandsInADifferentRange() {
    KeyHasher hasher = KeyHasher.forHashtag("{}");
    for (int shards : List.of(2, 3, 4, 6, 12)) {
      ShardedCounter c = ShardedCounter.builder(unused, "page:views")
          .hashtag("{}")
          .shards(shards)
          .build();
      Set<Integer> ranges = new HashSet<>();
      for (String key : c.shardKeys()) {
        ranges.add(rangeOf(hasher.hash(key), shards));
      }
      assertThat(ranges).as("ranges hit with %d shards", shards).hasSize(shards);
    }
  }

  @Test
  void subKeyNamesDependOnlyOnNameShardsAndHashtag() {
    List<String> a =
        ShardedCounter.builder(unused, "hits").hashtag("{}").shards(6).build().shardKeys();
    List<String> b =
        ShardedCounter.builder(unused, "hits").hashtag("{}").shards(6).build().shardKeys();
    assertThat(a).isEqualTo(b).doesNotHaveDuplicates().allMatch(k -> k.startsWith("hits:{"));
    List<String> untagged =
        ShardedCounter.builder(unused, "hits").shards(3).build().shardKeys();
    assertThat(untagged).allMatch(k -> k.startsWith("hits:") && !k.contains("{"));
  }

  @Test
  void badSettingsAreRefusedNamingTheCounter() {
    assertThatThrownBy(
            () -> ShardedCounter.builder(unused, "a{b}").hashtag("{}").shards(2).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a{b}")
        .hasMessageContaining("hash tag");
    assertThatThrownBy(() -> ShardedCounter.builder(unused, "c").shards(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'c'")
        .hasMessageContaining("shards");
    assertThatThrownBy(() -> ShardedCounter.builder(unused, "c").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("shards");
  }
}
