package io.dyno.companion;

import static io.dyno.companion.Clients.Raw.cmd;
import static io.dyno.companion.Clients.jedis;
import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.Clients.Raw;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;

@ExtendWith(CompanionClusterExtension.class)
@CompanionClusterConfig(racks = 3, nodesPerRack = 1, peerTimeoutMillis = 2000)
class ConsistencyTest {
  private static final String QUORUM = cmd("DYNO_CONFIG:CONN_CONSISTENCY", "DC_QUORUM");

  @Test
  void consistencyCommandAnswersOkAndIsCaseInsensitive(CompanionCluster cluster) throws Exception {
    try (Raw r = new Raw(cluster.node("rack1", 0).clientPort())) {
      r.send(cmd("dyno_config:conn_consistency", "dc_safe_quorum"));
      assertThat(r.read(5, 2000)).isEqualTo("+OK\r\n");
      r.send(cmd("SET", "k", "v"));
      assertThat(r.read(5, 2000)).isEqualTo("+OK\r\n");
    }
  }

  @Test
  void commandsPipelinedBehindTheConsistencyCommandAreSilentlyDropped(CompanionCluster cluster)
      throws Exception {
    try (Raw r = new Raw(cluster.node("rack1", 0).clientPort())) {
      r.send(QUORUM + cmd("SET", "dropped", "1") + cmd("PING"));
      assertThat(r.readAvailable(300)).isEqualTo("+OK\r\n");
      r.send(cmd("EXISTS", "dropped"));
      assertThat(r.read(4, 2000)).isEqualTo(":0\r\n");
    }
  }

  @Test
  void unknownLevelClosesTheConnectionWithoutReply(CompanionCluster cluster) throws Exception {
    try (Raw r = new Raw(cluster.node("rack1", 0).clientPort())) {
      r.send(cmd("DYNO_CONFIG:CONN_CONSISTENCY", "DC_MOST"));
      assertThat(r.readUntilClosed(2000)).isEmpty();
    }
  }

  @Test
  void quorumFailsWithPeerErrorWhenTwoOfThreeRacksAreDownButDcOneWorks(CompanionCluster cluster)
      throws Exception {
    cluster.node("rack2", 0).stop();
    cluster.node("rack3", 0).stop();
    int port = cluster.node("rack1", 0).clientPort();
    for (String level : new String[] {"DC_QUORUM", "DC_SAFE_QUORUM"}) {
      try (Raw r = new Raw(port)) {
        r.send(cmd("DYNO_CONFIG:CONN_CONSISTENCY", level));
        assertThat(r.read(5, 2000)).isEqualTo("+OK\r\n");
        r.send(cmd("SET", "q", "1"));
        assertThat(r.read(39, 3000)).isEqualTo("-ERR Peer: Peer Node is not connected\r\n");
        r.send(cmd("GET", "q"));
        assertThat(r.read(39, 3000)).isEqualTo("-ERR Peer: Peer Node is not connected\r\n");
      }
    }
    try (Jedis j = jedis(port)) {
      assertThat(j.set("q", "1")).isEqualTo("OK");
      assertThat(j.get("q")).isEqualTo("1");
    }
  }

  @Test
  void quorumSucceedsWithOneRackDown(CompanionCluster cluster) throws Exception {
    cluster.node("rack3", 0).stop();
    try (Raw r = new Raw(cluster.node("rack1", 0).clientPort())) {
      r.send(QUORUM);
      assertThat(r.read(5, 2000)).isEqualTo("+OK\r\n");
      r.send(cmd("SET", "q1", "v"));
      assertThat(r.read(5, 3000)).isEqualTo("+OK\r\n");
      r.send(cmd("GET", "q1"));
      assertThat(r.read(7, 3000)).isEqualTo("$1\r\nv\r\n");
    }
  }

  @Test
  void safeQuorumFailsWhenReplicasDisagree(CompanionCluster cluster) throws Exception {
    // Write a different value straight into each node's datastore through its peer port (no
    // replication).
    String[] values = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
      try (Raw p = new Raw(cluster.node("rack" + (i + 1), 0).peerPort())) {
        p.send(cmd("SET", "split", values[i]));
        assertThat(p.read(5, 2000)).isEqualTo("+OK\r\n");
      }
    }
    try (Raw r = new Raw(cluster.node("rack1", 0).clientPort())) {
      r.send(cmd("DYNO_CONFIG:CONN_CONSISTENCY", "DC_SAFE_QUORUM"));
      assertThat(r.read(5, 2000)).isEqualTo("+OK\r\n");
      r.send(cmd("GET", "split"));
      assertThat(r.read(41, 3000)).isEqualTo("-ERR Dynomite: Failed to achieve Quorum\r\n");
    }
    // DC_QUORUM accepts any quorum of answers
    try (Raw r = new Raw(cluster.node("rack1", 0).clientPort())) {
      r.send(QUORUM);
      assertThat(r.read(5, 2000)).isEqualTo("+OK\r\n");
      r.send(cmd("GET", "split"));
      assertThat(r.read(7, 3000)).matches("\\$1\r\n[abc]\r\n");
    }
  }

  @Test
  void adminConsistencyIsTheDefaultForNewConnections(CompanionCluster cluster) throws Exception {
    CompanionNode n = cluster.node("rack1", 0);
    Clients.http(n.adminUrl() + "/set_consistency/write/dc_quorum");
    cluster.node("rack2", 0).stop();
    cluster.node("rack3", 0).stop();
    try (Jedis j = jedis(n)) {
      Assertions.assertThatThrownBy(() -> j.set("x", "1"))
          .hasMessage("ERR Peer: Peer Node is not connected");
      // reads stay DC_ONE; the local rack applied the write (Dynomite does not roll back a failed
      // quorum)
      assertThat(j.get("x")).isEqualTo("1");
    }
  }
}
