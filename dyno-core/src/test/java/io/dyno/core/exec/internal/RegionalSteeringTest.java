package io.dyno.core.exec.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.testing.ManualScheduler;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Latency steering with two datacenters, on a manual clock: each datacenter is its own baseline,
 * so remote nodes 30 ms away are not outliers beside local ones at 0.5 ms, nor do they hide a slow
 * local node; a slow remote node is judged against the other remote nodes.
 */
class RegionalSteeringTest {
  static final long MS = 1_000_000L;
  static final Host L1 = host(7101, "rack1", "dc1");
  static final Host L2 = host(7102, "rack2", "dc1");
  static final Host L3 = host(7103, "rack3", "dc1");
  static final Host R1 = host(7201, "rack1", "dc2");
  static final Host R2 = host(7202, "rack2", "dc2");
  static final Host R3 = host(7203, "rack3", "dc2");

  final ManualScheduler clock = new ManualScheduler();
  HealthTracker health;
  RecentLatencies latencies;

  static Host host(int port, String rack, String dc) {
    return Host.builder("127.0.0.1", port).rack(rack).datacenter(dc).build();
  }

  void start() {
    DynoConfig cfg = DynoConfig.builder().applicationName("test").build();
    health = new HealthTracker(
        () -> cfg,
        clock,
        clock,
        Runnable::run,
        h -> 0L,
        h -> {},
        new Meters(new DefaultRegistry(), "test"));
    latencies = new RecentLatencies(clock, health, () -> cfg);
  }

  /** {@code n} replies of each node over 100 ms, with these latencies (ms) in L1..L3, R1..R3 order. */
  void replies(int n, double... ms) {
    Host[] hosts = {L1, L2, L3, R1, R2, R3};
    for (int i = 0; i < n; i++) {
      for (int h = 0; h < hosts.length; h++) {
        latencies.record(hosts[h], (long) (ms[h] * MS));
      }
      clock.advance(Duration.ofNanos(100 * MS / n));
    }
  }

  @Test
  void remoteNodesTensOfMillisecondsAwayAreNotOutliersBesideLocalOnes() {
    start();
    replies(40, 0.5, 0.5, 0.6, 30, 31, 30);
    replies(1, 0.5, 0.5, 0.6, 30, 31, 30); // the next check
    for (Host h : new Host[] {L1, L2, L3, R1, R2, R3}) {
      assertThat(health.isPreferred(h))
          .as(h + " is judged within its own datacenter")
          .isTrue();
    }
  }

  @Test
  void aSlowLocalNodeIsStillSteeredAwayFromThoughRemoteNodesAreSlowerStill() {
    start();
    // Against every node the median of the others would be 30 ms; against its own datacenter 0.55.
    replies(40, 20, 0.5, 0.6, 30, 31, 30);
    replies(1, 20, 0.5, 0.6, 30, 31, 30); // the next check
    assertThat(health.isPreferred(L1))
        .as("20 ms against local peers at about 0.55 ms")
        .isFalse();
    assertThat(health.isPreferred(L2)).isTrue();
    assertThat(health.isPreferred(R1)).isTrue();
  }

  @Test
  void aSlowRemoteNodeIsJudgedAgainstTheOtherRemoteNodes() {
    start();
    replies(40, 0.5, 0.5, 0.6, 30, 31, 400);
    replies(1, 0.5, 0.5, 0.6, 30, 31, 400); // the next check
    assertThat(health.isPreferred(R3))
        .as("400 ms against remote peers at about 30 ms")
        .isFalse();
    assertThat(health.isPreferred(R1)).isTrue();
    assertThat(health.isPreferred(L1)).isTrue();
  }

  @Test
  void aNodeAloneInItsDatacenterHasNoPeerAndIsNotSteered() {
    start();
    Host lone = host(7301, "rack1", "dc3");
    for (int i = 0; i <= 40; i++) { // the last round is at 100 ms: the next check
      latencies.record(L1, (long) (0.5 * MS));
      latencies.record(L2, (long) (0.5 * MS));
      latencies.record(lone, 80 * MS);
      clock.advance(Duration.ofNanos(100 * MS / 40));
    }
    assertThat(health.isPreferred(lone)).isTrue();
  }
}
