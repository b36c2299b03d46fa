package io.dyno.companion;

import static io.dyno.companion.Clients.Raw.cmd;
import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.Clients.Raw;
import io.dyno.core.internal.DynomiteCommands;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The companion closes the connection exactly where real Dynomite does: every shape of the shared
 * table (dyno-core dynomite-commands.txt, checked against the real server by RealDynomiteCommandsTest (dyno-jedis)),
 * sent raw to a companion node.
 */
@ExtendWith(CompanionClusterExtension.class)
@CompanionClusterConfig(racks = 1, nodesPerRack = 1, hashtag = "{}")
class ShapesTest {
  private final CompanionCluster cluster;

  ShapesTest(CompanionCluster cluster) {
    this.cluster = cluster;
  }

  @Test
  void everyShapeOfTheTableIsServedOrClosesTheConnectionAsOnDynomite() throws IOException {
    int port = cluster.node("rack1", 0).clientPort();
    List<String> wrong = new ArrayList<>();
    int served = 0;
    int closed = 0;
    for (DynomiteCommands.Entry e : DynomiteCommands.entries()) {
      for (List<String> shape : e.shapes()) {
        if (shape.get(0).equalsIgnoreCase("QUIT")) {
          continue; // served, then closes by design (UnsupportedCommandTest.quitAnswersOkThenCloses)
        }
        List<byte[]> raw = new ArrayList<>();
        shape.forEach(a -> raw.add(a.getBytes(StandardCharsets.UTF_8)));
        boolean dynomiteServes = DynomiteCommands.check(raw) == null;
        String[] args = shape.toArray(new String[0]);
        try (Raw r = new Raw(port)) {
          if (dynomiteServes) {
            served++;
            r.send(cmd(args) + cmd("PING"));
            if (!answeredThenPong(r)) {
              wrong.add("closed on " + shape + " (Dynomite serves it)");
            }
          } else {
            closed++;
            r.send(cmd("PING") + cmd(args) + cmd("PING"));
            String before = r.readUntilClosed(2000);
            if (!"+PONG\r\n".equals(before)) {
              wrong.add("served " + shape + " (Dynomite closes the connection): " + before);
            }
          }
        }
      }
    }
    assertThat(wrong).isEmpty();
    assertThat(served).isGreaterThan(150);
    assertThat(closed).isGreaterThan(60);
  }

  @Test
  void keysLongerThanDynomitesBufferCloseTheConnection() throws IOException {
    int port = cluster.node("rack1", 0).clientPort();
    String longest = "k".repeat(DynomiteCommands.MAX_KEY_BYTES);
    try (Raw r = new Raw(port)) {
      r.send(cmd("GET", longest) + cmd("PING"));
      assertThat(answeredThenPong(r)).isTrue();
    }
    try (Raw r = new Raw(port)) {
      r.send(cmd("PING") + cmd("GET", longest + "k") + cmd("PING"));
      assertThat(r.readUntilClosed(2000)).isEqualTo("+PONG\r\n");
    }
  }

  /** Reads until the trailing PING's +PONG arrives (true), or the connection closes (false); 2 s at most per byte. */
  private static boolean answeredThenPong(Raw r) throws IOException {
    StringBuilder got = new StringBuilder();
    while (!got.toString().endsWith("+PONG\r\n")) {
      String b = r.read(1, 2000); // "" at end of stream; a timeout throws
      if (b.isEmpty()) {
        return false;
      }
      got.append(b);
    }
    return true;
  }
}
