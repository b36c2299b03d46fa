package io.dyno.warmup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionClusterConfig;
import io.dyno.companion.CompanionClusterExtension;
import io.dyno.companion.CompanionNode;
import io.dyno.core.config.DynoConfig;
import io.dyno.jedis.DynoJedisClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;

/**
 * A node that was down comes back holding only what its Redis held; the sidecar warms it up from
 * the same token's owner in another rack before it serves (issue #37), on a companion cluster over
 * real redis-server: process A writes, deletes and ZREMs while rack1's node is down, and keeps
 * writing while it is warmed up; afterwards a fresh process B reads every key at DC_ONE and finds
 * no stale value, no deleted key and no lost write, and every rack's Redis holds the same data.
 */
@ExtendWith(CompanionClusterExtension.class)
@CompanionClusterConfig(racks = 3, nodesPerRack = 2, backend = Backend.REDIS)
class WarmUpTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int KEYS = 200;
  private static final int SETS = 10;

  @Test
  void aReturningNodeServesNothingItMissedToAFreshProcess(CompanionCluster cluster)
      throws Exception {
    CompanionNode node = cluster.node("rack1", 0);
    List<WarmUpNode> peers =
        List.of(warmUpNode(cluster.node("rack2", 0)), warmUpNode(cluster.node("rack3", 0)));
    Map<String, String> expected = new LinkedHashMap<>();
    Map<String, Set<String>> expectedSets = new LinkedHashMap<>();
    List<String> keys = keysOf(cluster, node, "wu:k:", KEYS);
    List<String> sets = keysOf(cluster, node, "wu:z:", SETS);

    try (DynoJedisClient a = client(cluster, "warmup-a");
        WarmUpSidecar sidecar = new WarmUpSidecar(
                warmUpNode(node),
                peers,
                Duration.ofMillis(50),
                Duration.ofSeconds(30),
                Duration.ofMillis(300))
            .start()) {
      await().atMost(WAIT).until(() -> sidecar.warmUps() == 1); // once at its start
      for (String k : keys) {
        a.set(k, "v1:" + k);
        expected.put(k, "v1:" + k);
      }
      for (String z : sets) {
        Set<String> members = new HashSet<>();
        for (int m = 0; m < 10; m++) {
          a.zadd(z, m, "m" + m);
          members.add("m" + m);
        }
        expectedSets.put(z, members);
      }
      await().atMost(WAIT).until(() -> everyRackHolds(cluster, expected, expectedSets));
      await().atMost(WAIT).until(() -> uptime(node) >= 1); // so that a restart shows

      node.stop();
      for (int i = 0; i < KEYS; i++) {
        String k = keys.get(i);
        if (i % 3 == 0) {
          a.del(k);
          expected.put(k, null);
        } else if (i % 3 == 1) {
          a.set(k, "v2:" + k);
          expected.put(k, "v2:" + k);
        }
      }
      for (String z : sets) {
        for (int m = 0; m < 5; m++) {
          a.zrem(z, "m" + m);
          expectedSets.get(z).remove("m" + m);
        }
      }
      assertThat(stored(node, keys.get(0)))
          .as("the stopped node's Redis missed the DEL")
          .isNotNull();

      // Writes keep flowing while the node returns and is warmed up.
      Map<String, String> during = new ConcurrentHashMap<>();
      AtomicBoolean writing = new AtomicBoolean(true);
      List<String> duringKeys = keysOf(cluster, node, "wu:d:", 2000);
      Thread writer = new Thread(() -> {
        for (int i = 0; writing.get() && i < duringKeys.size(); i++) {
          String k = duringKeys.get(i);
          a.set(k, "d:" + k); // acknowledged: must be readable everywhere afterwards
          during.put(k, "d:" + k);
        }
      });
      writer.start();
      await().atMost(WAIT).until(() -> during.size() >= 20);
      node.start();
      await().atMost(WAIT).until(() -> sidecar.warmUps() == 2);
      await().atMost(WAIT).until(() -> during.size() >= 40);
      writing.set(false);
      writer.join();
      expected.putAll(during);
      assertThat(sidecar.lastReport().keys()).isPositive();

      try (DynoJedisClient b = client(cluster, "warmup-b")) {
        int stale = 0;
        int resurrected = 0;
        int lost = 0;
        for (var e : expected.entrySet()) {
          String got = b.get(e.getKey());
          if (e.getValue() == null) {
            resurrected += got == null ? 0 : 1;
          } else if (got == null) {
            lost++;
          } else if (!got.equals(e.getValue())) {
            stale++;
          }
        }
        int staleSets = 0;
        for (var e : expectedSets.entrySet()) {
          staleSets += new HashSet<>(b.zrange(e.getKey(), 0, -1)).equals(e.getValue()) ? 0 : 1;
        }
        assertThat(List.of(stale, resurrected, lost, staleSets))
            .as("stale values, resurrected keys, lost writes, stale sorted sets read by B")
            .containsExactly(0, 0, 0, 0);
      }
      await().atMost(WAIT).until(() -> everyRackHolds(cluster, expected, expectedSets));
    }
  }

  @Test
  void aNodeBackWithAnEmptyRedisIsFilledBeforeItServes(CompanionCluster cluster) {
    CompanionNode node = cluster.node("rack1", 1);
    List<WarmUpNode> peers =
        List.of(warmUpNode(cluster.node("rack2", 1)), warmUpNode(cluster.node("rack3", 1)));
    Map<String, String> expected = new LinkedHashMap<>();
    try (DynoJedisClient a = client(cluster, "empty-a");
        WarmUpSidecar sidecar = new WarmUpSidecar(
                warmUpNode(node),
                peers,
                Duration.ofMillis(50),
                Duration.ofSeconds(30),
                Duration.ofMillis(300))
            .start()) {
      await().atMost(WAIT).until(() -> sidecar.warmUps() == 1);
      for (String k : keysOf(cluster, node, "wu:e:", KEYS)) {
        a.set(k, "e:" + k);
        expected.put(k, "e:" + k);
      }
      await().atMost(WAIT).until(() -> everyRackHolds(cluster, expected, Map.of()));

      node.stop();
      cluster.restartRedis(node); // a replaced instance: its Redis comes back empty
      node.start();
      await().atMost(WAIT).until(() -> sidecar.warmUps() == 2);

      try (DynoJedisClient b = client(cluster, "empty-b")) {
        long missing = expected.entrySet().stream()
            .filter(e -> !e.getValue().equals(b.get(e.getKey())))
            .count();
        assertThat(missing).as("keys B did not read back").isZero();
      }
      assertThat(everyRackHolds(cluster, expected, Map.of())).isTrue();
    }
  }

  private static DynoJedisClient client(CompanionCluster cluster, String app) {
    return DynoJedisClient.builder()
        .config(DynoConfig.builder()
            .applicationName(app)
            .nodeStatePollInterval(Duration.ofMillis(100))
            .build())
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .nodeStates(cluster.nodeStates())
        .build();
  }

  private static WarmUpNode warmUpNode(CompanionNode n) {
    return new WarmUpNode("127.0.0.1", n.adminPort(), n.redisPort());
  }

  /** {@code count} keys whose rack1 owner is {@code node}. */
  private static List<String> keysOf(
      CompanionCluster cluster, CompanionNode node, String prefix, int count) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; keys.size() < count; i++) {
      if (cluster.ownerOf("rack1", prefix + i).clientPort() == node.clientPort()) {
        keys.add(prefix + i);
      }
    }
    return keys;
  }

  /** Whether every rack's owner's Redis, read directly, holds exactly the expected data. */
  private static boolean everyRackHolds(
      CompanionCluster cluster, Map<String, String> values, Map<String, Set<String>> sets) {
    for (String rack : cluster.racks()) {
      for (var e : values.entrySet()) {
        String got = stored(cluster.ownerOf(rack, e.getKey()), e.getKey());
        if (e.getValue() == null ? got != null : !e.getValue().equals(got)) {
          return false;
        }
      }
      for (var e : sets.entrySet()) {
        try (Jedis r = new Jedis("127.0.0.1", cluster.ownerOf(rack, e.getKey()).redisPort())) {
          if (!new HashSet<>(r.zrange(e.getKey(), 0, -1)).equals(e.getValue())) {
            return false;
          }
        }
      }
    }
    return true;
  }

  private static String stored(CompanionNode node, String key) {
    try (Jedis r = new Jedis("127.0.0.1", node.redisPort())) {
      return r.get(key);
    }
  }

  private static final Pattern UPTIME = Pattern.compile("\"uptime\":(\\d+)");

  private static long uptime(CompanionNode node) throws IOException, InterruptedException {
    String info = HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(node.adminUrl() + "/info"))
                .timeout(Duration.ofSeconds(30))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
    Matcher m = UPTIME.matcher(info);
    assertThat(m.find()).as("/info has an uptime").isTrue();
    return Long.parseLong(m.group(1));
  }
}
