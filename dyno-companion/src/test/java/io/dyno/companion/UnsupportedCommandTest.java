package io.dyno.companion;

import static io.dyno.companion.Clients.Raw.cmd;
import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.Clients.Raw;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@ExtendWith(CompanionClusterExtension.class)
@CompanionClusterConfig(racks = 1, nodesPerRack = 1)
class UnsupportedCommandTest {
  private final CompanionCluster cluster;

  UnsupportedCommandTest(CompanionCluster cluster) {
    this.cluster = cluster;
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "AUTH pw",
        "SELECT 1",
        "HELLO 3",
        "CLIENT SETINFO lib-name x",
        "COMMAND",
        "COMMAND DOCS",
        "ECHO hi",
        "MULTI",
        "EXEC",
        "WATCH k",
        "PUBLISH c m",
        "SUBSCRIBE c",
        "CLUSTER INFO",
        "CONFIG SET save x",
        "FLUSHALL",
        "FLUSHDB",
        "DBSIZE",
        "TIME",
        "WAIT 1 0",
        "RENAME a b",
        "RENAMENX a b",
        "MSETNX a 1 b 2",
        "MOVE a 1",
        "RANDOMKEY",
        "BITOP AND d a b",
        "BLPOP l 0",
        "BRPOP l 0",
        "NOSUCHCOMMAND x"
      })
  void unsupportedCommandClosesTheConnectionWithoutReply(String command) throws Exception {
    try (Raw r = new Raw(cluster.node("rack1", 0).clientPort())) {
      r.send(cmd("PING"));
      assertThat(r.read(7, 2000)).isEqualTo("+PONG\r\n");
      r.send(cmd(command.split(" ")) + cmd("PING"));
      assertThat(r.readUntilClosed(2000)).isEmpty();
    }
  }

  @Test
  void theCloseIsImmediateRepliesStillOwedAreLost() throws Exception {
    // as on real Dynomite: a PING in the same write as the unsupported command is never answered
    try (Raw r = new Raw(cluster.node("rack1", 0).clientPort())) {
      r.send(cmd("PING") + cmd("ECHO", "x") + cmd("PING"));
      assertThat(r.readUntilClosed(2000)).isEmpty();
    }
  }

  @Test
  void quitAnswersOkThenCloses() throws Exception {
    try (Raw r = new Raw(cluster.node("rack1", 0).clientPort())) {
      r.send(cmd("QUIT"));
      assertThat(r.readUntilClosed(2000)).isEqualTo("+OK\r\n");
    }
  }

  @Test
  void onlyInlinePingWorks() throws Exception {
    try (Raw r = new Raw(cluster.node("rack1", 0).clientPort())) {
      r.send("PING\r\n");
      assertThat(r.read(7, 2000)).isEqualTo("+PONG\r\n");
    }
    // Dynomite's parser knows no other inline command: it closes
    try (Raw r = new Raw(cluster.node("rack1", 0).clientPort())) {
      r.send("GET foo\r\n");
      assertThat(r.readUntilClosed(2000)).isEmpty();
    }
  }
}
