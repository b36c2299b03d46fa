package io.dyno.companion.dynomite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dyno.testsupport.RedisServer;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The process-based real Dynomite cluster: ready means replicating, and its faults are real. */
class RealDynomiteClusterTest {
  private static DynomiteCluster cluster;

  @BeforeAll
  static void start() {
    DynomiteAssumptions.assumeBinary();
    cluster = DynomiteCluster.builder().racks(3).nodesPerRack(2).hashtag("{}").start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) cluster.close();
  }

  @Test
  void aWriteRightAfterStartReachesEveryRack() throws IOException {
    // No await before the write: start() must not return before the peer links carry replication.
    String key = "fresh:" + UUID.randomUUID();
    DynomiteNode entry = cluster.node("rack2", 1);
    assertThat(RawResp.call(entry.clientPort(), Duration.ofSeconds(2), "SET", key, "v"))
        .isEqualTo("+OK");
    for (String rack : cluster.racks()) {
      await("'" + key + "' in some redis of " + rack)
          .atMost(Duration.ofSeconds(5))
          .until(() ->
              cluster.rack(rack).stream().anyMatch(n -> "v".equals(get(n.redisPort(), key))));
    }
  }

  @Test
  void theAdminPortIsDynomitesOwn() {
    DynomiteNode n = cluster.node("rack1", 0);
    assertThat(n.info()).contains("\"service\":\"dynomite\"").contains("\"rack\":\"rack1\"");
    assertThat(n.adminGet("/cluster_describe"))
        .contains("\"rack3\"")
        .contains("\"port\":" + n.peerPort());
  }

  @Test
  void aPausedNodeAnswersNothingAndAResumedOneServesAgain() throws IOException {
    DynomiteNode n = cluster.node("rack3", 0);
    n.pause();
    try {
      assertThat(n.isRunning()).isFalse();
      assertThatThrownBy(() -> RawResp.call(n.clientPort(), Duration.ofMillis(300), "GET", "k"))
          .isInstanceOf(SocketTimeoutException.class);
    } finally {
      n.resume();
    }
    assertThat(RawResp.call(n.clientPort(), Duration.ofSeconds(2), "SET", "{p}k", "v"))
        .isEqualTo("+OK");
  }

  @Test
  void aDeadRedisGivesDynomitesStorageErrorAndARestartedNodeReplicatesAgain() throws IOException {
    DynomiteNode n = cluster.node("rack1", 1);
    // Keys the other node of rack1 owns are forwarded there and served; the first key this node
    // owns itself meets its dead Redis.
    n.killRedis();
    try {
      String reply = null;
      for (int i = 0; i < 200 && reply == null; i++) {
        String r = RawResp.call(n.clientPort(), Duration.ofSeconds(2), "GET", "{own" + i + "}");
        if (r != null && r.startsWith("-")) reply = r;
      }
      assertThat(reply).isEqualTo("-ERR Storage: Datastore refused connection");
    } finally {
      n.startRedis();
    }
    n.kill();
    assertThat(n.isRunning()).isFalse();
    n.start();
    cluster.awaitReplicating(Duration.ofSeconds(20));
    String key = "after-restart:" + UUID.randomUUID();
    assertThat(RawResp.call(n.clientPort(), Duration.ofSeconds(2), "SET", key, "v"))
        .isEqualTo("+OK");
    for (String rack : cluster.racks()) {
      await(key + " in " + rack)
          .atMost(Duration.ofSeconds(5))
          .until(() ->
              cluster.rack(rack).stream().anyMatch(x -> "v".equals(get(x.redisPort(), key))));
    }
  }

  @Test
  void probeNamesTheNodesWhoseWritesDoNotReplicate() {
    // Two plain redis-servers: a write through "rack1" never reaches "rack2", so the probe must
    // give up within its bound and name the writer and the rack it missed.
    try (RedisServer a = RedisServer.start();
        RedisServer b = RedisServer.start()) {
      assertThatThrownBy(() -> ReplicationProbe.await(
              List.of(new ReplicationProbe.Writer("dc1/rack1/0", "rack1", a.port())),
              List.of(
                  new ReplicationProbe.Store("rack1", a.port()),
                  new ReplicationProbe.Store("rack2", b.port())),
              Duration.ofMillis(1500)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(
              "dc1/rack1/0 (rack rack1, 127.0.0.1:" + a.port() + ") missing in rack2")
          .hasMessageNotContaining("missing in rack1");
    }
  }

  private static String get(int port, String key) {
    try {
      return RawResp.call(port, Duration.ofSeconds(1), "GET", key);
    } catch (IOException e) {
      return null;
    }
  }
}
