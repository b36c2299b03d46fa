package io.dyno.companion.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.CompanionCluster;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Regression (RespDecoderFuzzTest, CI): a request announcing 300 million arguments made the node
 * size a list for them on its event loop, and a PING on another connection went unanswered for
 * seconds. The node now closes such a connection at once and keeps serving.
 */
class HugeArrayHeaderTest {
  @Test
  void aHugeArgumentCountClosesThatConnectionAndTheNodeKeepsServing() throws Exception {
    try (CompanionCluster cluster =
            CompanionCluster.builder().racks(1).nodesPerRack(1).start();
        Socket health = new Socket("127.0.0.1", cluster.nodes().get(0).clientPort())) {
      int port = cluster.nodes().get(0).clientPort();
      health.setSoTimeout(5_000);
      for (int i = 0; i < 20; i++) {
        try (Socket s = new Socket("127.0.0.1", port)) {
          s.setSoTimeout(5_000);
          s.getOutputStream().write("*300000000\r\n".getBytes(StandardCharsets.US_ASCII));
          assertThat(s.getInputStream().read())
              .as("the node closes the connection without a reply")
              .isEqualTo(-1);
        }
      }
      health.getOutputStream().write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
      InputStream in = health.getInputStream();
      assertThat(new String(in.readNBytes(7), StandardCharsets.US_ASCII)).isEqualTo("+PONG\r\n");
    }
  }
}
