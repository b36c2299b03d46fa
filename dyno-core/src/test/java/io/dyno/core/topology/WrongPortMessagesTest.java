package io.dyno.core.topology;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.testsupport.RedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A cluster_describe URL with the wrong port, against real sockets: each failure names its likely
 * cause and where the endpoint is; a port that answers in another protocol is an unusable answer
 * (no wait mends it), a port with nothing behind it is not (the node may be starting).
 */
class WrongPortMessagesTest {
  private ClusterDescribeTokenMapSupplier supplier;

  @AfterEach
  void tearDown() {
    if (supplier != null) supplier.close();
  }

  private ClusterDescribeTokenMapSupplier supplier(String url) {
    supplier = ClusterDescribeTokenMapSupplier.builder()
        .endpoint(url)
        .connectTimeout(Duration.ofSeconds(2))
        .requestTimeout(Duration.ofSeconds(5))
        .build();
    return supplier;
  }

  @Test
  void aClosedPortSaysNothingIsListeningThere() throws IOException {
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    String url = "http://127.0.0.1:" + closed + "/cluster_describe";
    assertThatThrownBy(() -> supplier(url).getHostTokens())
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(UnusableAnswerException.class)
        .hasMessageContaining(
            url + " → ConnectException: nothing is listening at 127.0.0.1:" + closed)
        .hasMessageContaining("a wrong host or port, or the node is not running")
        .hasMessageContaining("/cluster_describe on its stats port 22222");
  }

  /** A RESP server's error reply in place of a status line (Dynomite's or Redis's port, say). */
  @Test
  void aPortAnsweringRespSaysItIsProbablyARespOrPeerPort() throws Exception {
    try (RespAnswerer resp = new RespAnswerer()) {
      String url = "http://127.0.0.1:" + resp.port() + "/cluster_describe";
      assertThatThrownBy(() -> supplier(url).getHostTokens())
          .isInstanceOf(UnusableAnswerException.class)
          .hasMessageContaining(url + " → 127.0.0.1:" + resp.port() + " is not an HTTP port")
          .hasMessageContaining("-ERR unknown command")
          .hasMessageContaining(
              "probably a RESP port (a node's client port, or its Redis) or a" + " peer port")
          .hasMessageContaining("/cluster_describe on its stats port 22222");
    }
  }

  /** A real redis-server closes on an HTTP request: no HTTP answer at all. */
  @Test
  void aRedisPortSaysItIsProbablyARespOrPeerPort() throws Exception {
    try (RedisServer redis = RedisServer.start()) {
      String url = "http://127.0.0.1:" + redis.port() + "/cluster_describe";
      assertThatThrownBy(() -> supplier(url).getHostTokens())
          .isInstanceOf(UnusableAnswerException.class)
          .hasMessageContaining(url + " → 127.0.0.1:" + redis.port() + " is not an HTTP port")
          .hasMessageContaining("probably a RESP port");
    }
  }

  /** One connection at a time: reads the request's first line, answers a RESP error, closes. */
  private static final class RespAnswerer implements AutoCloseable {
    private final ServerSocket server;
    private final Thread thread;

    RespAnswerer() throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      thread = new Thread(this::serve, "resp-answerer");
      thread.setDaemon(true);
      thread.start();
    }

    int port() {
      return server.getLocalPort();
    }

    private void serve() {
      while (!server.isClosed()) {
        try (Socket s = server.accept()) {
          InputStream in = s.getInputStream();
          int b;
          while ((b = in.read()) != -1 && b != '\n') {
            // the request line: enough for Redis to answer
          }
          OutputStream out = s.getOutputStream();
          out.write("-ERR unknown command 'GET'\r\n".getBytes(StandardCharsets.US_ASCII));
          out.flush();
        } catch (IOException e) {
          return; // closed
        }
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
