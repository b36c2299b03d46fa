package io.dyno.companion;

import static io.dyno.companion.Clients.http;
import static io.dyno.companion.Clients.jedis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.routing.DynomiteHash;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

@ExtendWith(CompanionClusterExtension.class)
@CompanionClusterConfig(racks = 3, nodesPerRack = 2)
class ClusterRoutingTest {
  private final CompanionCluster cluster;

  ClusterRoutingTest(CompanionCluster cluster) {
    this.cluster = cluster;
  }

  @Test
  void tokensAreEvenlySpacedAndOwnershipFollowsDynomite() {
    assertThat(cluster.nodes("rack1"))
        .extracting(CompanionNode::token)
        .containsExactly(0L, 2147483647L);
    // facts: with tokens {0, 2147483647} foo and user:1 -> token 0, bar and hello -> 2147483647
    assertThat(cluster.ownerOf("rack1", "foo").token()).isZero();
    assertThat(cluster.ownerOf("rack2", "user:1").token()).isZero();
    assertThat(cluster.ownerOf("rack1", "bar").token()).isEqualTo(2147483647L);
    assertThat(cluster.ownerOf("rack3", "hello").token()).isEqualTo(2147483647L);
    assertThat(DynomiteHash.hash("foo")).isEqualTo(3303027599L);
  }

  @Test
  void requestToTheOwnerIsNotForwardedButToAnotherNodeIsCounted() {
    cluster.flushAll();
    CompanionNode owner = cluster.ownerOf("rack1", "bar");
    CompanionNode other =
        cluster.nodes("rack1").stream().filter(n -> n != owner).findFirst().orElseThrow();
    owner.resetStats();
    other.resetStats();
    try (Jedis j = jedis(owner)) {
      assertThat(j.set("bar", "v1")).isEqualTo("OK");
      assertThat(j.get("bar")).isEqualTo("v1");
    }
    assertThat(owner.stats().forwarded()).isZero();
    assertThat(owner.stats().requests()).isEqualTo(2);
    try (Jedis j = jedis(other)) {
      assertThat(j.get("bar")).isEqualTo("v1");
    }
    assertThat(other.stats().forwarded()).isEqualTo(1);
    assertThat(owner.stats().peerRequests()).isEqualTo(1);
    // the counter is on /info too
    assertThat(http(other.adminUrl() + "/info")).contains("\"forwarded\":1");
  }

  @Test
  void writesAreReplicatedToTheOwnerInEveryRack() {
    cluster.flushAll();
    try (Jedis j = jedis(cluster.node("rack1", 0))) {
      j.set("user:1", "ada");
      j.hset("profile:7", "name", "bob");
    }
    for (String rack : cluster.racks()) {
      CompanionNode owner = cluster.ownerOf(rack, "user:1");
      Clients.await("user:1 in " + rack, Duration.ofSeconds(5), () -> {
        try (Jedis j = jedis(owner)) {
          return "ada".equals(j.get("user:1")) && "bob".equals(j.hget("profile:7", "name"));
        }
      });
      // the copy is on the owner itself: KEYS is local only
      try (Jedis j = jedis(owner)) {
        assertThat(j.keys("user:*")).containsExactly("user:1");
      }
    }
  }

  @Test
  void keysAndScanSeeOnlyTheConnectedNodesKeys() {
    cluster.flushAll();
    try (Jedis j = jedis(cluster.node("rack1", 0))) {
      j.set("foo", "1"); // token 0
      j.set("bar", "2"); // token 2147483647
      assertThat(j.keys("*")).containsExactly("foo");
      assertThat(j.scan("0").getResult()).containsExactly("foo");
    }
    try (Jedis j = jedis(cluster.node("rack1", 1))) {
      assertThat(j.keys("*")).containsExactly("bar");
    }
  }

  @Test
  void multiKeyCommandsAreSplitPerOwner() {
    cluster.flushAll();
    CompanionNode n = cluster.node("rack1", 0);
    n.resetStats();
    try (Jedis j = jedis(n)) {
      assertThat(j.mset("foo", "1", "bar", "2", "hello", "3", "user:1", "4")).isEqualTo("OK");
      assertThat(j.mget("foo", "bar", "nope", "hello", "user:1"))
          .containsExactly("1", "2", null, "3", "4");
      assertThat(j.exists("foo", "bar", "nope")).isEqualTo(2);
      assertThat(j.del("foo", "bar", "hello")).isEqualTo(3);
      assertThat(j.mget("foo", "user:1")).containsExactly(null, "4");
    }
    // bar and hello live on the other rack1 node: each split command sent one part there
    assertThat(n.stats().forwarded()).isEqualTo(4);
    try (Jedis j = jedis(cluster.ownerOf("rack1", "bar"))) {
      assertThat(j.keys("*")).isEmpty();
    }
  }

  @Test
  void evalKeysMustBeOnOneNode() {
    try (Jedis j = jedis(cluster.node("rack1", 0))) {
      assertThatThrownBy(() -> j.eval("return 1", List.of("foo", "bar"), List.of()))
          .isInstanceOf(JedisDataException.class)
          .hasMessage("ERR Dynomite: Keys in the script cannot span multiple nodes");
    }
  }

  @Test
  void scriptLoadGoesToEveryNode() {
    String sha;
    try (Jedis j = jedis(cluster.node("rack1", 0))) {
      j.scriptFlush();
      sha = j.scriptLoad("return 1");
    }
    assertThat(sha).isEqualTo("e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
    for (CompanionNode n : cluster.nodes()) {
      try (Jedis j = jedis(n)) {
        assertThat(j.scriptExists(sha)).as(n.toString()).isTrue();
      }
    }
  }

  @Test
  void pingInfoAndConfigGetAreAnswered() {
    try (Jedis j = jedis(cluster.node("rack2", 1))) {
      assertThat(j.ping()).isEqualTo("PONG");
      assertThat(j.info()).contains("redis_version");
      assertThat(j.configGet("appendonly")).containsEntry("appendonly", "no");
    }
  }

  @Test
  void adminPortServesBothClusterDescribeShapes() {
    CompanionNode n = cluster.node("rack2", 1);
    String dyn = http(n.adminUrl() + "/cluster_describe");
    assertThat(dyn)
        .startsWith("{\"dcs\": [{\"name\":\"dc1\",\"racks\": [")
        .contains("{\"name\":\"127.0.0.1\",\"host\":\"127.0.0.1\",\"port\":"
            + cluster.node("rack3", 1).peerPort() + ",\n\"token\":2147483647\n}");
    String florida = http(n.adminUrl() + "/REST/v1/admin/cluster_describe");
    assertThat(florida)
        .startsWith("[{\"token\":\"0\"")
        .contains("\"zone\":\"rack1\",\"rack\":\"rack1\",\"dc\":\"dc1\",\"port\":\""
            + cluster.node("rack1", 0).clientPort() + "\"");
    // Dynomite's bodies, line endings included
    assertThat(http(n.adminUrl() + "/ping")).isEqualTo("OK\r\n");
    assertThat(http(n.adminUrl() + "/get_consistency"))
        .isEqualTo("Read Consistency: DC_ONE\r\nWrite Consistency: DC_ONE\r\n");
    assertThat(http(n.adminUrl() + "/set_consistency/read/dc_quorum")).isEqualTo("OK\r\n");
    assertThat(http(n.adminUrl() + "/get_consistency"))
        .isEqualTo("Read Consistency: DC_QUORUM\r\nWrite Consistency: DC_ONE\r\n");
    assertThat(http(n.adminUrl() + "/state/get_state")).isEqualTo("State: NORMAL\n");
    assertThat(http(n.adminUrl() + "/info"))
        .contains("\"rack\":\"rack2\"", "\"dc\":\"dc1\"", "\"uptime\":");
  }

  @Test
  void standbyStateRejectsRequestsWithDynomitesError() {
    CompanionNode n = cluster.node("rack1", 0);
    http(n.adminUrl() + "/state/standby");
    try (Jedis j = jedis(n)) {
      assertThatThrownBy(() -> j.get("foo"))
          .hasMessage("ERR Dynomite: Dynomite's current state does not allow this request");
    }
  }
}
