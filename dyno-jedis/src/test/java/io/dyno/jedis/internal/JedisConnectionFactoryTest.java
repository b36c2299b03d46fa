package io.dyno.jedis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/** The connection is Dynomite-safe: nothing on connect, consistency sent alone and awaited. */
class JedisConnectionFactoryTest {
  /** A recording RESP server: one client; answers +OK / +PONG; notes whether bytes trailed each command. */
  static final class RecordingServer implements AutoCloseable {
    final ServerSocket server;
    final List<String> commands = new CopyOnWriteArrayList<>();
    final List<Boolean> trailingBytes = new CopyOnWriteArrayList<>();

    RecordingServer() throws IOException {
      server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
      Thread thread = new Thread(this::serve, "recording-server");
      thread.setDaemon(true);
      thread.start();
    }

    int port() {
      return server.getLocalPort();
    }

    private void serve() {
      try (Socket s = server.accept()) {
        DataInputStream in = new DataInputStream(s.getInputStream());
        OutputStream out = s.getOutputStream();
        while (true) {
          String line = readLine(in);
          int n = Integer.parseInt(line.substring(1));
          List<String> parts = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            int len = Integer.parseInt(readLine(in).substring(1));
            byte[] b = new byte[len];
            in.readFully(b);
            readLine(in);
            parts.add(new String(b, StandardCharsets.UTF_8));
          }
          trailingBytes.add(in.available() > 0);
          commands.add(String.join(" ", parts));
          out.write(
              parts.get(0).equalsIgnoreCase("PING")
                  ? "+PONG\r\n".getBytes()
                  : "+OK\r\n".getBytes());
          out.flush();
        }
      } catch (IOException | RuntimeException e) {
        // client went away
      }
    }

    private static String readLine(DataInputStream in) throws IOException {
      StringBuilder sb = new StringBuilder();
      int c;
      while ((c = in.read()) != '\r') {
        if (c < 0) {
          throw new IOException("eof");
        }
        sb.append((char) c);
      }
      in.read();
      return sb.toString();
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }

  private RecordingServer server;
  private Host host;

  @BeforeEach
  void start() throws IOException {
    server = new RecordingServer();
    host = Host.builder("127.0.0.1", server.port())
        .rack("rack1")
        .datacenter("dc1")
        .password("secret")
        .build();
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  @Test
  void aNewConnectionSendsNothingDynomiteWouldRejectEvenWhenTheHostHasAPassword() {
    JedisConnectionFactory f = new JedisConnectionFactory(JedisConnectionFactory.Datastore.off());
    try (JedisNodeConnection c = f.open(host, Duration.ofSeconds(2), Duration.ofSeconds(2))) {
      c.ping();
    }
    // The first and only command the server saw is our PING: no HELLO, CLIENT SETINFO, AUTH or
    // SELECT.
    assertThat(server.commands).containsExactly("PING");
  }

  @Test
  void consistencyIsSentAloneAndAwaitedBeforeTheNextCommand() {
    JedisConnectionFactory f = new JedisConnectionFactory(JedisConnectionFactory.Datastore.off());
    try (JedisNodeConnection c = f.open(host, Duration.ofSeconds(2), Duration.ofSeconds(2))) {
      c.setConsistency(ConsistencyLevel.DC_QUORUM);
      assertThat(c.consistency()).isEqualTo(ConsistencyLevel.DC_QUORUM);
      c.ping();
    }
    assertThat(server.commands).containsExactly("DYNO_CONFIG:CONN_CONSISTENCY DC_QUORUM", "PING");
    assertThat(server.trailingBytes.get(0))
        .as("bytes pipelined behind DYNO_CONFIG")
        .isFalse();
  }

  @Test
  void datastoreModeAuthenticatesAndSelectsTheDatabase() {
    JedisConnectionFactory f =
        new JedisConnectionFactory(new JedisConnectionFactory.Datastore(true, null, null, 3, null));
    try (JedisNodeConnection c = f.open(host, Duration.ofSeconds(2), Duration.ofSeconds(2))) {
      c.ping();
      assertThatThrownBy(() -> c.setConsistency(ConsistencyLevel.DC_ONE))
          .hasMessageContaining("datastore mode");
    }
    assertThat(server.commands).containsExactly("AUTH secret", "SELECT 3", "PING");
  }

  @Test
  void failuresAreClassifiedByWhatTheyMeanForTheConnection() {
    assertThat(JedisConnectionFactory.classifyFailure(new JedisConnectionException("reset")))
        .isEqualTo(FailureKind.CONNECTION);
    assertThat(JedisConnectionFactory.classifyFailure(
            new JedisConnectionException(new SocketTimeoutException("t"))))
        .isEqualTo(FailureKind.TIMEOUT);
    assertThat(JedisConnectionFactory.classifyFailure(
            new JedisDataException("ERR Peer: Peer Node is not connected")))
        .isEqualTo(FailureKind.REPLICA);
    assertThat(JedisConnectionFactory.classifyFailure(
            new JedisDataException("ERR Storage: Datastore refused connection")))
        .isEqualTo(FailureKind.REPLICA);
    assertThat(JedisConnectionFactory.classifyFailure(
            new JedisDataException("WRONGTYPE Operation against a key")))
        .isEqualTo(FailureKind.DATA);
  }
}
