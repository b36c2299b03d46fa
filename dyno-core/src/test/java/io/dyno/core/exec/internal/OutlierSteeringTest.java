package io.dyno.core.exec.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.DynoConfigBuilder;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.testing.ManualScheduler;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Latency-outlier steering on a manual clock: a node whose recent median is far above its peers'
 * is no longer preferred (nor counted as failed), and is preferred again once its latency probes
 * answer under the bound three times in a row.
 */
class OutlierSteeringTest {
  static final Host A = CallDeciderTest.A;
  static final Host B = CallDeciderTest.B;
  static final Host C = CallDeciderTest.C;
  static final long MS = 1_000_000L;

  final ManualScheduler clock = new ManualScheduler();
  final Meters meters = new Meters(new DefaultRegistry(), "test");
  /** How long each latency probe of a node takes (ms). */
  final AtomicLong probeMillis = new AtomicLong();

  final AtomicLong probes = new AtomicLong();

  HealthTracker health;
  RecentLatencies latencies;

  void start(DynoConfigBuilder b) {
    DynoConfig cfg = b.applicationName("test").build();
    health = new HealthTracker(
        () -> cfg,
        clock,
        clock,
        Runnable::run,
        h -> {
          probes.incrementAndGet();
          clock.advance(Duration.ofMillis(probeMillis.get()));
          return probeMillis.get() * 1_000_000L;
        },
        h -> {},
        meters);
    latencies = new RecentLatencies(clock, health, () -> cfg);
  }

  /** Moves the clock until {@code n} more latency probes ran. */
  void probesPass(int n) {
    long until = probes.get() + n;
    while (probes.get() < until) {
      clock.advance(Duration.ofMillis(10));
    }
  }

  /** {@code n} replies of each node, with these latencies (ms), spread over 100 ms. */
  void replies(int n, double a, double b, double c) {
    for (int i = 0; i < n; i++) {
      latencies.record(A, (long) (a * MS));
      latencies.record(B, (long) (b * MS));
      latencies.record(C, (long) (c * MS));
      clock.advance(Duration.ofNanos(100 * MS / n));
    }
  }

  @Test
  void aNodeFarSlowerThanItsPeersIsSteeredAwayFromThenPreferredAgainAfterThreeFastProbes() {
    start(DynoConfig.builder());
    replies(40, 50, 0.5, 0.6);
    replies(1, 50, 0.5, 0.6); // the next check
    assertThat(health.isPreferred(A)).as("50 ms against peers at about 0.55 ms").isFalse();
    assertThat(health.isUp(A)).as("steered is not failed").isTrue();
    assertThat(health.isPreferred(B)).isTrue();
    assertThat(health.isPreferred(C)).isTrue();
    assertThat(health.downCount()).isZero();

    probeMillis.set(50); // the node is still slow: its probes are over the bound
    clock.advance(Duration.ofSeconds(2));
    assertThat(health.isSteered(A)).isTrue();

    probeMillis.set(0); // the fault is over
    probesPass(2);
    assertThat(health.isSteered(A)).as("two fast probes are not enough").isTrue();
    probesPass(1);
    assertThat(health.isSteered(A)).isFalse();
    assertThat(health.isPreferred(A)).isTrue();

    replies(40, 0.5, 0.5, 0.6);
    assertThat(health.isPreferred(A))
        .as("its slow replies from before it was steered are forgotten")
        .isTrue();
  }

  @Test
  void aNodeOnlyAFewMillisecondsSlowerIsNotAnOutlier() {
    start(DynoConfig.builder());
    replies(60, 4, 0.5, 0.6); // 8x its peers, but less than 5 ms more
    assertThat(health.isPreferred(A)).isTrue();
  }

  @Test
  void nodesThatAreAllSlowAreNotSteered() {
    start(DynoConfig.builder());
    replies(60, 40, 45, 50);
    assertThat(health.steeredCount()).isZero();
  }

  @Test
  void aNodeWithTooFewRecentRepliesIsNotJudged() {
    start(DynoConfig.builder());
    for (int i = 0; i < RecentLatencies.MIN_MEDIAN_SAMPLES - 1; i++) {
      latencies.record(A, 80 * MS);
    }
    for (int i = 0; i < 60; i++) {
      latencies.record(B, MS / 2);
      latencies.record(C, MS / 2);
      clock.advance(Duration.ofMillis(2));
    }
    assertThat(latencies.median(A)).isEqualTo(-1);
    assertThat(health.isPreferred(A)).isTrue();
  }

  @Test
  void steeringCanBeTurnedOff() {
    start(DynoConfig.builder().steerOutliers(false));
    replies(60, 50, 0.5, 0.6);
    assertThat(health.isPreferred(A)).isTrue();
  }

  @Test
  void theBoundIsBothFactorTimesAndMinExtraAboveThePeersMedian() {
    DynoConfig cfg = DynoConfig.defaults();
    assertThat(RecentLatencies.outlierBound(MS / 2, cfg)).isEqualTo(5 * MS + MS / 2);
    assertThat(RecentLatencies.outlierBound(10 * MS, cfg)).isEqualTo(50 * MS);
  }
}
