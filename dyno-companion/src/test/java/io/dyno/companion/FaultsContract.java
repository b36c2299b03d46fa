package io.dyno.companion;

import static io.dyno.companion.Clients.Raw.cmd;
import static io.dyno.companion.Clients.http;
import static io.dyno.companion.Clients.jedis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.Clients.Raw;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/** Every fault, from code and from the admin port; run on both backends by the subclasses. */
abstract class FaultsContract {
  final CompanionCluster cluster;

  FaultsContract(CompanionCluster cluster) {
    this.cluster = cluster;
  }

  /** A node of rack1 that does not own "foo", and the owner. */
  CompanionNode nonOwner() {
    CompanionNode owner = cluster.ownerOf("rack1", "foo");
    return cluster.nodes("rack1").stream().filter(n -> n != owner).findFirst().orElseThrow();
  }

  /** A stopped node answers nothing on its client port (refused, or reset if the freed port was reused meanwhile). */
  static void assertNotServing(CompanionNode n) {
    assertThatThrownBy(() -> {
          try (Jedis j = jedis(n.clientPort(), 500)) {
            j.ping();
          }
        })
        .isInstanceOf(JedisConnectionException.class);
  }

  @Test
  void stoppedNodeRefusesConnectionsAndPeersAnswerNotConnectedUntilRestarted() throws Exception {
    CompanionNode owner = cluster.ownerOf("rack1", "foo");
    try (Jedis j = jedis(owner)) {
      j.set("foo", "before");
    }
    owner.stop();
    assertThat(owner.isRunning()).isFalse();
    assertThat(cluster.hostSupplier().getHosts())
        .filteredOn(h -> h.port() == owner.clientPort())
        .allMatch(h -> !h.isUp());
    assertNotServing(owner);
    try (Jedis j = jedis(nonOwner())) {
      // Dynomite does not fail over to another rack: the client must
      assertThatThrownBy(() -> j.get("foo")).hasMessage("ERR Peer: Peer Node is not connected");
    }
    owner.start();
    try (Jedis j = jedis(nonOwner())) {
      assertThat(j.get("foo")).isEqualTo("before");
    }
  }

  @Test
  void stopAndStartFromTheAdminPort() throws Exception {
    CompanionNode n = cluster.node("rack2", 0);
    assertThat(http(n.adminUrl() + "/fault/stop")).contains("\"running\":false");
    assertNotServing(n);
    assertThat(http(n.adminUrl() + "/fault/start")).contains("\"running\":true");
    try (Jedis j = jedis(n)) {
      assertThat(j.ping()).isEqualTo("PONG");
    }
  }

  @Test
  void hungNodeAcceptsButNeverAnswers() throws Exception {
    CompanionNode n = cluster.node("rack1", 0);
    n.hang();
    try (Jedis j = jedis(n.clientPort(), 300)) {
      assertThatThrownBy(j::ping)
          .isInstanceOf(JedisConnectionException.class)
          .hasMessageContaining("timed out");
    }
    n.unhang();
    try (Jedis j = jedis(n)) {
      assertThat(j.ping()).isEqualTo("PONG");
    }
    http(n.adminUrl() + "/fault/hang");
    try (Raw r = new Raw(n.clientPort())) {
      r.send(cmd("PING"));
      assertThat(r.readAvailable(300)).isEmpty();
    }
  }

  @Test
  void forwardingToAHungOwnerTimesOutWithPeerError() {
    CompanionNode owner = cluster.ownerOf("rack1", "foo");
    owner.hang();
    try (Jedis j = jedis(nonOwner().clientPort(), 5000)) {
      assertThatThrownBy(() -> j.get("foo"))
          .hasMessage(
              "ERR Peer: Peer Node refused connection"); // what Dynomite answers on a peer timeout
    }
  }

  @Test
  void delayedRepliesArriveAfterTheDelay() {
    CompanionNode n = cluster.node("rack1", 0);
    n.delayReplies(Duration.ofMillis(150));
    try (Jedis j = jedis(n)) {
      long t0 = System.nanoTime();
      assertThat(j.ping()).isEqualTo("PONG");
      assertThat(Duration.ofNanos(System.nanoTime() - t0))
          .isGreaterThanOrEqualTo(Duration.ofMillis(150));
      http(n.adminUrl() + "/fault/delay/0");
      t0 = System.nanoTime();
      j.ping();
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofMillis(150));
    }
  }

  @Test
  void failWithAnswersTheChosenErrorByteExact() throws Exception {
    CompanionNode n = cluster.node("rack1", 0);
    n.failWith("ERR Peer: Peer Node is not connected");
    try (Raw r = new Raw(n.clientPort())) {
      r.send(cmd("GET", "foo"));
      assertThat(r.read(39, 2000)).isEqualTo("-ERR Peer: Peer Node is not connected\r\n");
    }
    n.failWith(null);
    http(n.adminUrl() + "/fault/error/ERR%20Storage:%20Datastore%20refused%20connection");
    try (Jedis j = jedis(n)) {
      assertThatThrownBy(j::ping).hasMessage("ERR Storage: Datastore refused connection");
    }
  }

  @Test
  void cutPeerLinksFailsForwardedRequestsButNotLocalOnes() {
    CompanionNode n = nonOwner();
    CompanionNode owner = cluster.ownerOf("rack1", "foo");
    try (Jedis j = jedis(owner)) {
      j.set("foo", "1");
      j.set("bar", "2"); // forwarded to n
    }
    n.cutPeerLinks();
    try (Jedis j = jedis(n)) {
      assertThatThrownBy(() -> j.get("foo")).hasMessage("ERR Peer: Peer Node is not connected");
      assertThat(j.get("bar")).isEqualTo("2"); // n owns bar
    }
    try (Jedis j = jedis(owner)) { // the other direction is cut too
      assertThatThrownBy(() -> j.get("bar")).hasMessage("ERR Peer: Peer Node is not connected");
    }
    http(n.adminUrl() + "/fault/restore_peers");
    try (Jedis j = jedis(n)) {
      assertThat(j.get("foo")).isEqualTo("1");
    }
  }

  @Test
  void backendDownAnswersStorageErrorButStillReplicatesAndQuorumSucceeds() throws Exception {
    CompanionNode n = cluster.ownerOf("rack1", "foo");
    n.backendDown();
    try (Raw r = new Raw(n.clientPort())) {
      r.send(cmd("SET", "foo", "written-while-down"));
      assertThat(r.read(44, 2000)).isEqualTo("-ERR Storage: Datastore refused connection\r\n");
      r.send(cmd("GET", "foo"));
      assertThat(r.read(44, 2000)).isEqualTo("-ERR Storage: Datastore refused connection\r\n");
      r.send(cmd("DYNO_CONFIG:CONN_CONSISTENCY", "DC_QUORUM"));
      assertThat(r.read(5, 2000)).isEqualTo("+OK\r\n");
      r.send(cmd("GET", "foo"));
      assertThat(r.read(25, 3000)).isEqualTo("$18\r\nwritten-while-down\r\n");
    }
    try (Jedis j = jedis(cluster.ownerOf("rack2", "foo"))) {
      assertThat(j.get("foo")).isEqualTo("written-while-down");
    }
    http(n.adminUrl() + "/fault/backend_up");
    try (Jedis j = jedis(n)) {
      assertThat(j.set("foo", "ok")).isEqualTo("OK");
    }
  }

  @Test
  void clearFaultsFromTheAdminPortRestoresService() {
    CompanionNode n = cluster.node("rack1", 0);
    n.failWith("ERR boom");
    n.backendDown();
    assertThat(http(n.adminUrl() + "/fault/clear"))
        .contains("\"backend_down\":false", "\"error\":null");
    try (Jedis j = jedis(n)) {
      assertThat(j.set("k", "v")).isEqualTo("OK");
    }
  }
}
