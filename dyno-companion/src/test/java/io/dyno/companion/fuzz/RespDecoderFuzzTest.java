package io.dyno.companion.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The companion's RESP decoding on a real node (Netty's decoder, the aggregators and the command
 * handler), client and peer listeners: fuzzed bytes are sent, then the sender half-closes.
 * Property: the node answers what it can and closes the connection (no connection left hanging
 * after its client is gone), and it keeps serving: a PING on a long-lived connection gets PONG.
 * The first byte picks the listener (odd: peer).
 */
class RespDecoderFuzzTest {
  private static CompanionCluster cluster;
  private static CompanionNode node;
  private static Socket health;

  @BeforeAll
  static void start() throws IOException {
    // (Jazzer's network sanitizer is only armed inside the fuzz test method.)
    cluster = CompanionCluster.builder().racks(1).nodesPerRack(1).start();
    node = cluster.nodes().get(0);
    health = new Socket("127.0.0.1", node.clientPort());
    health.setSoTimeout(5_000);
  }

  @AfterAll
  static void stop() throws IOException {
    health.close();
    cluster.close();
  }

  @FuzzTest(maxDuration = "10s")
  void resp(byte[] data) throws IOException {
    boolean peer = data.length > 0 && (data[0] & 1) == 1;
    byte[] payload = data.length > 0 ? Arrays.copyOfRange(data, 1, data.length) : data;
    try (var allowed = BugDetectors.allowNetworkConnections(
        (h, p) -> h.equals("localhost") || h.startsWith("127."))) {
      try (Socket s = new Socket("127.0.0.1", peer ? node.peerPort() : node.clientPort())) {
        s.setSoLinger(true, 0); // no TIME_WAIT per execution
        s.setSoTimeout(5_000);
        try {
          s.getOutputStream().write(payload);
          s.shutdownOutput();
          InputStream in = s.getInputStream();
          byte[] buf = new byte[8192];
          while (in.read(buf) >= 0) {
            // drain what the node answers until it closes
          }
        } catch (SocketTimeoutException e) {
          throw new AssertionError(
              "the node kept the connection open 5 s after its client half-closed", e);
        } catch (IOException e) {
          // a reset by the node is a close too
        }
      }
      health.getOutputStream().write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
      byte[] pong = health.getInputStream().readNBytes(7);
      assertThat(new String(pong, StandardCharsets.US_ASCII)).isEqualTo("+PONG\r\n");
    }
  }
}
