package io.dyno.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The README's main command runs to the end by itself and shows each step's outcome. */
class DemoMainTest {

  @Test
  void demoWalksThroughRoutingPipelineQuorumAndFailoverWithoutFailedReads() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    long t0 = System.nanoTime();
    int code = DemoMain.run(
        new String[] {"--backend", "memory"}, new PrintStream(buf, true, StandardCharsets.UTF_8));
    String out = buf.toString(StandardCharsets.UTF_8);
    assertThat(code).isZero();
    assertThat((System.nanoTime() - t0) / 1e9).isLessThan(120);
    assertThat(out).contains("topology version", "tokens (2147483647, 0] -> replicas in order");
    assertThat(out).contains("no request was forwarded: the client saved Dynomite's extra hop");
    assertThat(out)
        .contains("replies: [item-0, item-1, item-2, item-3, item-4, item-5, item-6, item-7]");
    assertThat(out).contains("DC_QUORUM GET balance:42 = 100");
    assertThat(out).containsPattern("asked other racks [1-9]\\d* time");
    assertThat(out).contains("reads returned to the local rack once the node was back");
    Matcher m = Pattern.compile("reads during the whole failover: (\\d+) succeeded, (\\d+) failed")
        .matcher(out);
    assertThat(m.find()).as(out).isTrue();
    assertThat(Long.parseLong(m.group(1))).isPositive();
    assertThat(Long.parseLong(m.group(2))).as("failed reads during failover").isZero();
    assertThat(out).contains("borrow delay", "failovers");
  }
}
