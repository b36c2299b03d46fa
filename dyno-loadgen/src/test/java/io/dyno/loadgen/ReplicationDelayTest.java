package io.dyno.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.Backend;
import io.dyno.companion.dynomite.DynomiteAssumptions;
import io.dyno.loadgen.target.DynomiteTarget;
import io.dyno.loadgen.target.EmbeddedTarget;
import io.dyno.loadgen.target.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The replication delay mode against the companion and against real Dynomite: every polled key is
 * seen in every other rack with a positive delay below the bound; with one rack's node cut off
 * from its peers during the run, its keys are counted as never seen while the other rack's are.
 */
class ReplicationDelayTest {
  private static final Duration BOUND = Duration.ofSeconds(2);

  @Test
  void companionEveryKeySeenThenACutPeerLinkShowsAsNeverSeen() throws Exception {
    try (EmbeddedTarget t = EmbeddedTarget.start(3, 1, Backend.MEMORY)) {
      List<String> lines = new ArrayList<>();
      try (ReplicationDelay r =
          new ReplicationDelay(t, "rack1", 200, 20, BOUND, Duration.ofMillis(100), lines::add)) {
        r.run(2);
        assertThat(lines).allMatch(l -> l.contains(" 0 write errors"));
        assertAllSeen(r.racks(), 40);
        t.cluster().node("rack3", 0).cutPeerLinks();
        try {
          r.run(1);
        } finally {
          t.cluster().node("rack3", 0).restorePeerLinks();
        }
        Map<String, Map<String, Object>> racks = r.racks();
        assertThat(((Number) racks.get("rack2").get("missing")).longValue()).isZero();
        assertThat(((Number) racks.get("rack3").get("missing")).longValue()).isEqualTo(20);
      }
      assertThat(lines).anyMatch(l -> l.contains("iteration 3"));
    }
  }

  @Test
  void realDynomiteEveryKeySeenInEveryOtherRack() throws Exception {
    DynomiteAssumptions.assumeBinary();
    try (Target t = DynomiteTarget.start(3, 1, null);
        ReplicationDelay r =
            new ReplicationDelay(t, null, 200, 20, BOUND, Duration.ofMillis(100), l -> {})) {
      r.run(2);
      assertAllSeen(r.racks(), 40);
    }
  }

  private static void assertAllSeen(Map<String, Map<String, Object>> racks, int keys) {
    assertThat(racks).containsOnlyKeys("rack2", "rack3");
    racks.forEach((rack, f) -> {
      assertThat(((Number) f.get("keys")).intValue()).as(rack + " " + racks).isEqualTo(keys);
      assertThat(((Number) f.get("missing")).intValue()).as(rack).isZero();
      assertThat(((Number) f.get("p50Ms")).doubleValue()).as(rack).isPositive();
      assertThat(((Number) f.get("maxMs")).doubleValue()).as(rack).isLessThan(BOUND.toMillis());
    });
  }
}
