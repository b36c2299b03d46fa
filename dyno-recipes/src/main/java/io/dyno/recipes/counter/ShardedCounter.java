package io.dyno.recipes.counter;

import io.dyno.core.routing.KeyHasher;
import io.dyno.core.routing.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import redis.clients.jedis.UnifiedJedis;

/**
 * A counter split over {@code shards} sub-keys placed on different token ranges, so a hot counter's
 * increments spread over the cluster's nodes instead of hammering one; reads sum the sub-keys.
 *
 * <h2>Placement</h2>
 * Sub-key {@code i} gets a hash in the middle half of the {@code i}-th of {@code shards} equal slices
 * of the 32-bit ring (a hash tag is used when the cluster has one, so the hashed part is short). With
 * {@code shards} equal to the number of token ranges and evenly spaced tokens (Dynomite's usual
 * layout), every sub-key lands in a different range, i.e. on a different node of each rack. The names
 * depend only on (name, shards, hashtag), never on the live topology: every application instance
 * agrees on them, and a topology change moves sub-keys between nodes but never loses one.
 *
 * <h2>Consistency</h2>
 * Each increment is one {@code INCRBY} on one sub-key. Through Dynomite at DC_ONE the owner in the
 * local rack applies it and replicates it asynchronously to the other racks, so {@link #get()} can
 * lag by the increments still replicating (sub-millisecond on a healthy cluster) and, if a rack's
 * node was down or a peer link cut, a rack can miss increments for good (Dynomite has no repair):
 * read at DC_QUORUM for a better read, but counts are not guaranteed to converge after faults.
 * {@code get()} is not a snapshot: it sums sub-keys read one after another. An increment that fails
 * with a timeout may or may not have been applied: retrying it can count twice (at-least-once),
 * not retrying can lose it (at-most-once). Callers choose.
 */
public final class ShardedCounter implements Counter {
  private static final int MAX_SEARCH = 1_000_000;

  private final UnifiedJedis client;
  private final String name;
  private final List<String> keys;

  private ShardedCounter(UnifiedJedis client, String name, List<String> keys) {
    this.client = client;
    this.name = name;
    this.keys = keys;
  }

  /** A counter named {@code name} on {@code client} (a DynoJedisClient, or any UnifiedJedis). */
  public static Builder builder(UnifiedJedis client, String name) {
    return new Builder(client, name);
  }

  @Override
  public void incrementBy(long delta) {
    client.incrBy(keys.get(ThreadLocalRandom.current().nextInt(keys.size())), delta);
  }

  /** Adds {@code delta} to a chosen sub-key (e.g. one per thread, to keep a thread on one node). */
  public void incrementShard(int shard, long delta) {
    client.incrBy(keys.get(Math.floorMod(shard, keys.size())), delta);
  }

  @Override
  public long get() {
    long sum = 0;
    for (String k : keys) {
      String v = client.get(k);
      if (v != null) {
        try {
          sum += Long.parseLong(v);
        } catch (NumberFormatException e) {
          throw new IllegalStateException(
              "counter '" + name + "': sub-key " + k + " holds a non-integer: " + v, e);
        }
      }
    }
    return sum;
  }

  /** The sub-keys, shard 0 first. */
  public List<String> shardKeys() {
    return keys;
  }

  /** Deletes every sub-key (the counter reads 0 afterwards). */
  public void delete() {
    for (String k : keys) {
      client.del(k);
    }
  }

  public String name() {
    return name;
  }

  @Override
  public String toString() {
    return "ShardedCounter{" + name + ", " + keys.size() + " shards}";
  }

  /** Builds a {@link ShardedCounter}. */
  public static final class Builder {
    private final UnifiedJedis client;
    private final String name;
    private KeyHasher hasher = KeyHasher.noHashtag();
    private int shards;

    private Builder(UnifiedJedis client, String name) {
      this.client = Objects.requireNonNull(client, "client");
      if (name == null || name.isEmpty()) {
        throw new IllegalArgumentException("counter name must not be empty");
      }
      this.name = name;
    }

    /** Use the cluster's hasher (hash tag) and, unless set, one shard per token range. */
    public Builder topology(Topology topology) {
      this.hasher = topology.hasher();
      if (shards == 0) {
        shards = Math.max(1, (int) topology.tokenRanges().stream()
            .map(Topology.TokenRange::endInclusive)
            .distinct()
            .count());
      }
      return this;
    }

    /** The cluster's hash tag, e.g. {@code "{}"} (default: none). */
    public Builder hashtag(String hashtag) {
      this.hasher = KeyHasher.forHashtag(hashtag);
      return this;
    }

    /**
     * Number of sub-keys. Every instance using this counter must use the same number: pass it
     * explicitly in production rather than deriving it from a topology that may change.
     */
    public Builder shards(int n) {
      if (n < 1 || n > 1024) {
        throw new IllegalArgumentException(
            "counter '" + name + "': shards must be 1..1024, was " + n);
      }
      this.shards = n;
      return this;
    }

    public ShardedCounter build() {
      if (shards == 0) {
        throw new IllegalStateException("counter '" + name + "': set shards(n) or topology(t)");
      }
      String tag = hasher.hashtag();
      if (!tag.isEmpty()
          && (name.indexOf(tag.charAt(0)) >= 0 || name.indexOf(tag.charAt(1)) >= 0)) {
        throw new IllegalArgumentException(
            "counter name '" + name + "' must not contain the hash tag characters " + tag);
      }
      List<String> keys = new ArrayList<>(shards);
      long width = (1L << 32) / shards;
      for (int i = 0; i < shards; i++) {
        long lo = i * width + width / 4;
        long hi = i * width + 3 * width / 4;
        keys.add(find(tag, i, lo, hi));
      }
      return new ShardedCounter(client, name, List.copyOf(keys));
    }

    private String find(String tag, int shard, long lo, long hi) {
      for (int j = 0; j < MAX_SEARCH; j++) {
        String key = tag.isEmpty()
            ? name + ":" + shard + ":" + j
            : name + ":" + tag.charAt(0) + name + ":" + shard + ":" + j + tag.charAt(1);
        long h = hasher.hash(key);
        if (h >= lo && h <= hi) {
          return key;
        }
      }
      throw new IllegalStateException("counter '" + name + "': found no sub-key hashing into [" + lo
          + ", " + hi + "] for shard " + shard + " (too many shards?)");
    }
  }
}
