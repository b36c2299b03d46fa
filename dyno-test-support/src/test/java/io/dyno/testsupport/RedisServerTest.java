package io.dyno.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class RedisServerTest {
  @Test
  void aStartedServerAnswersAsItselfOnItsPort() {
    try (RedisServer redis = RedisServer.start()) {
      assertThat(RespProbe.processId(redis.port(), null, false)).isEqualTo(redis.pid());
      assertThat(redis.hostAndPort()).isEqualTo("127.0.0.1:" + redis.port());
    }
  }

  @Test
  void aPasswordFromTheArgsIsUsedToProbeTheServer() {
    try (RedisServer redis = RedisServer.start("--requirepass", "s3cret")) {
      assertThat(RespProbe.processId(redis.port(), null, false))
          .isEqualTo(RespProbe.ANSWERING_UNIDENTIFIED);
      assertThat(RespProbe.processId(redis.port(), "s3cret", false)).isEqualTo(redis.pid());
    }
  }

  @Test
  void aServerThatLetsOnlyAclUsersInStarts() {
    try (RedisServer redis = RedisServer.start(
        "--user", "alice", "on", ">pw", "~*", "+@all", "--user", "default", "off")) {
      assertThat(redis.isAlive()).isTrue();
      assertThat(RespProbe.processId(redis.port(), null, false))
          .isEqualTo(RespProbe.ANSWERING_UNIDENTIFIED);
    }
  }

  @Test
  void theStartUpProbeLeavesNoClientConnected() {
    try (RedisServer redis = RedisServer.start()) {
      assertThat(connectedClients(redis)).as("only the connection asking").isEqualTo(1);
    }
  }

  @Test
  void aPausedServerKeepsItsPortButAnswersNothingUntilResumed() {
    try (RedisServer redis = RedisServer.start()) {
      redis.pause();
      assertThat(redis.isAlive()).isTrue();
      assertThat(RespProbe.processId(redis.port(), null, false)).isEqualTo(RespProbe.NOT_ANSWERING);
      redis.resume();
      assertThat(RespProbe.processId(redis.port(), null, false)).isEqualTo(redis.pid());
    }
  }

  @Test
  void aKilledServerComesBackOnTheSamePortAfterRestart() {
    try (RedisServer redis = RedisServer.start()) {
      int port = redis.port();
      long firstPid = redis.pid();
      redis.kill();
      assertThat(redis.isAlive()).isFalse();
      assertThat(RespProbe.processId(port, null, false)).isEqualTo(RespProbe.NOT_ANSWERING);
      redis.restart();
      assertThat(redis.port()).isEqualTo(port);
      assertThat(redis.pid()).isNotEqualTo(firstPid);
      assertThat(RespProbe.processId(port, null, false)).isEqualTo(redis.pid());
    }
  }

  @Test
  void closeKillsTheProcessDeletesItsFolderAndMayBeCalledAgain() {
    RedisServer redis = RedisServer.start();
    Path log = redis.log();
    assertThat(log).exists();
    redis.pause(); // a frozen server is still killed
    redis.close();
    redis.close();
    assertThat(redis.isAlive()).isFalse();
    assertThat(log.getParent()).doesNotExist();
    assertThatThrownBy(redis::restart).hasMessageContaining("is closed");
  }

  @Test
  void aFixedPortHeldBySomeoneElseFailsNamingThePortAndQuotingTheLog() throws Exception {
    try (ServerSocket squatter = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      assertThatThrownBy(
              () -> RedisServer.builder().port(squatter.getLocalPort()).start())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("127.0.0.1:" + squatter.getLocalPort())
          .hasMessageContaining("Address already in use");
    }
  }

  @Test
  void aPortAnotherRedisServerAlreadyServesIsToldApartFromOurs() {
    try (RedisServer first = RedisServer.start()) {
      assertThatThrownBy(() -> RedisServer.builder().port(first.port()).start())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(String.valueOf(first.port()));
      assertThat(first.isAlive()).isTrue();
    }
  }

  private static int connectedClients(RedisServer redis) {
    try (Socket s = new Socket(redis.host(), redis.port())) {
      s.setSoTimeout(2000);
      s.getOutputStream().write("INFO clients\r\n".getBytes(StandardCharsets.US_ASCII));
      BufferedReader in =
          new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.startsWith("connected_clients:")) {
          return Integer.parseInt(line.substring("connected_clients:".length()));
        }
      }
      throw new AssertionError("no connected_clients in INFO clients");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void aMissingBinaryFailsAtOnceSayingWhatToInstall() {
    assertThatThrownBy(() ->
            RedisServer.builder().executable("no-such-redis-server-binary").start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no-such-redis-server-binary was not found on PATH")
        .hasMessageContaining("apt-get install redis-server")
        .hasMessageContaining("-Ddyno.redis-server=");
  }

  @Test
  void aPathThatIsNotExecutableIsNamed() throws Exception {
    Path notABinary = Files.createTempFile("redis-server", ".txt");
    try {
      assertThatThrownBy(
              () -> RedisServer.builder().executable(notABinary.toString()).start())
          .hasMessageContaining(notABinary + " is not an executable file");
    } finally {
      Files.delete(notABinary);
    }
  }

  @Test
  void aServerThatRejectsItsOptionsFailsWithItsOwnComplaint() {
    assertThatThrownBy(() -> RedisServer.start("--no-such-option", "1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("exited with status")
        .hasMessageContaining("no-such-option");
  }
}
