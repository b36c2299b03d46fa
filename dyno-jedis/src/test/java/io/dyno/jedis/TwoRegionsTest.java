package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.RemoteDatacenterFallback;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * A client in dc1 of a two-region companion cluster (3 racks x 2 nodes each, 30 ms one way between
 * the regions): healthy, nothing leaves dc1; with every dc1 node stopped, reads are served by dc2
 * without a failure while writes follow {@code remoteDatacenterFallback}; once dc1 is back,
 * traffic returns to it.
 */
class TwoRegionsTest {
  static final int KEYS = 100;
  static CompanionCluster cluster;

  @BeforeAll
  static void start() {
    cluster = CompanionCluster.builder()
        .datacenters("dc1", "dc2")
        .racks(3)
        .nodesPerRack(2)
        .interDatacenterDelay(Duration.ofMillis(30))
        .start();
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  static DynoJedisClient client(String name, RemoteDatacenterFallback fallback) {
    return DynoJedisClient.builder()
        .applicationName(name)
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .localDatacenter("dc1")
        .config(DynoConfig.builder().remoteDatacenterFallback(fallback).build())
        .build();
  }

  static long requests(List<CompanionNode> nodes) {
    return nodes.stream().mapToLong(n -> n.stats().requests()).sum();
  }

  static void resetStats() {
    cluster.nodes().forEach(CompanionNode::resetStats);
  }

  @Test
  void readsFailOverToTheOtherRegionWritesFollowTheSettingAndTrafficComesBack() {
    List<CompanionNode> dc1 = cluster.datacenterNodes("dc1");
    List<CompanionNode> dc2 = cluster.datacenterNodes("dc2");
    try (DynoJedisClient reads = client("regions-reads", RemoteDatacenterFallback.READS);
        DynoJedisClient all = client("regions-all", RemoteDatacenterFallback.ALL)) {
      // Healthy: every call stays in dc1.
      resetStats();
      for (int i = 0; i < KEYS; i++) {
        reads.set("region:" + i, "v" + i);
        assertThat(reads.get("region:" + i)).isEqualTo("v" + i);
      }
      assertThat(requests(dc2))
          .as("client requests in dc2 while dc1 is healthy")
          .isZero();
      assertThat(requests(dc1)).isEqualTo(2L * KEYS);
      String last = "region:" + (KEYS - 1);
      for (String rack : cluster.racks()) {
        try (Jedis j = new Jedis("127.0.0.1", cluster.ownerOf("dc2", rack, last).clientPort())) {
          await()
              .atMost(Duration.ofSeconds(10))
              .until(() -> ("v" + (KEYS - 1)).equals(j.get(last)));
        }
      }

      // dc1 away: reads are served by dc2, none fails.
      dc1.forEach(CompanionNode::stop);
      resetStats();
      int failed = 0;
      for (int round = 0; round < 3; round++) {
        for (int i = 0; i < KEYS; i++) {
          try {
            assertThat(reads.get("region:" + i)).isEqualTo("v" + i);
          } catch (RuntimeException e) {
            failed++;
          }
        }
      }
      assertThat(failed).as("failed reads with dc1 away").isZero();
      assertThat(requests(dc2)).isGreaterThanOrEqualTo(3L * KEYS);

      // Writes: refused at once naming the setting under READS, served by dc2 under ALL.
      long start = System.nanoTime();
      assertThatThrownBy(() -> reads.set("region:0", "during"))
          .hasMessageContaining("remoteDatacenterFallback=READS")
          .hasMessageContaining("dc1");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
      await()
          .atMost(Duration.ofSeconds(10))
          .ignoreExceptions()
          .until(() -> "OK".equals(all.set("region:1", "during")));
      assertThat(reads.get("region:1")).isEqualTo("during");

      // dc1 back: traffic returns to it.
      dc1.forEach(CompanionNode::start);
      await().atMost(Duration.ofSeconds(15)).until(() -> {
        resetStats();
        for (int i = 2; i < 2 + 20; i++) {
          reads.get("region:" + i);
        }
        return requests(dc2) == 0 && requests(dc1) == 20;
      });
      assertThat(reads.set("region:2", "after")).isEqualTo("OK");
    }
  }
}
