package io.dyno.companion;

import static io.dyno.companion.Clients.Raw.cmd;
import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.Clients.Raw;
import io.dyno.core.internal.KnownCommands;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The companion closes the connection exactly where real Dynomite does: every shape of the shared
 * table (dyno-core commands.txt, checked against the real server by RealDynomiteCommandsTest (dyno-jedis)),
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
    for (KnownCommands.Entry e : KnownCommands.entries()) {
      for (List<String> shape : e.shapes()) {
        if (shape.get(0).equalsIgnoreCase("QUIT")) {
          continue; // served, then closes by design
          // (UnsupportedCommandTest.quitAnswersOkThenCloses)
        }
        List<byte[]> raw = new ArrayList<>();
        shape.forEach(a -> raw.add(a.getBytes(StandardCharsets.UTF_8)));
        KnownCommands.Refusal refusal = KnownCommands.check(raw);
        boolean dynomiteServes = refusal == null;
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
            r.send(cmd("PING"));
            String pong = r.read(7, 2000);
            r.send(cmd(args) + cmd("PING"));
            String after = r.readUntilClosed(refusal.waits() ? 300 : 2000); // null: open, no reply
            if (!"+PONG\r\n".equals(pong)
                || !(refusal.waits() ? after == null : "".equals(after))) {
              wrong.add("served " + shape + " (Dynomite "
                  + (refusal.waits() ? "waits" : "closes the connection") + "): " + pong + after);
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
  void aKnownCommandMissingItsFirstArgumentGetsNoReplyAndTheConnectionStaysOpen()
      throws IOException {
    for (String[] request :
        new String[][] {{"GET"}, {"MSET"}, {"EVAL"}, {"SCRIPT", "DEBUG", "NO"}, {"CONFIG"}}) {
      try (Raw r = new Raw(cluster.node("rack1", 0).clientPort())) {
        r.send(cmd(request) + cmd("PING"));
        assertThat(r.readUntilClosed(300))
            .as(String.join(" ", request) + ": Dynomite waits for the rest")
            .isNull();
      }
    }
  }

  @Test
  void keysLongerThanDynomitesBufferCloseTheConnection() throws IOException {
    int port = cluster.node("rack1", 0).clientPort();
    String longest = "k".repeat(KnownCommands.MAX_KEY_BYTES);
    try (Raw r = new Raw(port)) {
      r.send(cmd("GET", longest) + cmd("PING"));
      assertThat(answeredThenPong(r)).isTrue();
    }
    try (Raw r = new Raw(port)) {
      r.send(cmd("GET", longest + "k") + cmd("PING"));
      assertThat(r.readUntilClosed(2000)).isEmpty();
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
