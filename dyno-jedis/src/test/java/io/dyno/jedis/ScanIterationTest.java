package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionClusterConfig;
import io.dyno.companion.CompanionClusterExtension;
import io.dyno.companion.CompanionNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.ScanIteration;
import redis.clients.jedis.resps.ScanResult;

/**
 * Issue #25: Jedis's {@code scanIteration} on a Dyno client walks the whole cluster, each key once,
 * as {@code scanAll} does, with MATCH and TYPE applied.
 */
@ExtendWith(CompanionClusterExtension.class)
@CompanionClusterConfig(racks = 3, nodesPerRack = 2, backend = Backend.REDIS)
class ScanIterationTest {
  private static final int KEYS = 3_000;

  private final CompanionCluster cluster;
  private final DynoJedisClient client;

  ScanIterationTest(CompanionCluster cluster) {
    this.cluster = cluster;
    cluster.flushAll();
    client = DynoJedisClient.builder()
        .applicationName("scan-iteration")
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .build();
  }

  @AfterEach
  void stop() {
    client.close();
  }

  @Test
  void everyKeyOfTheClusterComesOnceWithAndWithoutAPattern() {
    Set<String> matching = write("si:", KEYS);
    Set<String> others = write("other:", 500);
    for (CompanionNode n : cluster.nodes("rack1")) {
      try (Jedis j = new Jedis("127.0.0.1", n.redisPort())) {
        assertThat(j.dbSize())
            .as("keys on " + n.host())
            .isBetween(1L, KEYS + 499L); // spread, not all on one node
      }
    }

    ScanIteration it = client.scanIteration(100, "si:*");
    List<String> seen = new ArrayList<>();
    int batches = 0;
    while (!it.isIterationCompleted()) {
      ScanResult<String> batch = it.nextBatch();
      assertThat(batch.getResult()).hasSizeLessThanOrEqualTo(100);
      seen.addAll(batch.getResult());
      batches++;
    }
    assertThat(batches).isGreaterThanOrEqualTo(KEYS / 100);
    assertThat(seen).hasSize(KEYS).doesNotHaveDuplicates();
    assertThat(new HashSet<>(seen)).isEqualTo(matching);

    Collection<String> all = client.scanIteration(1000, null).collect(new ArrayList<>());
    Set<String> expected = new HashSet<>(matching);
    expected.addAll(others);
    assertThat(all).hasSize(KEYS + 500).doesNotHaveDuplicates();
    assertThat(new HashSet<>(all)).isEqualTo(expected);

    assertThat(client.scanIteration(10, "none:*").collect(new ArrayList<>())).isEmpty();
  }

  @Test
  void aTypeKeepsOnlyKeysOfThatType() {
    write("ty:s:", 50);
    Set<String> hashes = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      client.hset("ty:h:" + i, "f", "v");
      hashes.add("ty:h:" + i);
    }
    Collection<String> got = client.scanIteration(7, "ty:*", "hash").collect(new ArrayList<>());
    assertThat(got).hasSize(50).doesNotHaveDuplicates();
    assertThat(new HashSet<>(got)).isEqualTo(hashes);
  }

  @Test
  void aClosedClientRefusesIt() {
    DynoJedisClient closed = DynoJedisClient.builder()
        .applicationName("scan-iteration-closed")
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .build();
    closed.close();
    assertThatThrownBy(() -> closed.scanIteration(10, "*"))
        .isInstanceOf(ClientClosedException.class);
  }

  private Set<String> write(String prefix, int n) {
    Set<String> keys = new HashSet<>();
    for (int from = 0; from < n; from += 500) {
      int size = Math.min(500, n - from);
      String[] kv = new String[2 * size];
      for (int i = 0; i < size; i++) {
        kv[2 * i] = prefix + (from + i);
        kv[2 * i + 1] = "v";
        keys.add(prefix + (from + i));
      }
      client.mset(kv);
    }
    return keys;
  }
}
