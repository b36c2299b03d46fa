package io.dyno.core.exec.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Registry;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.metrics.DynoMetrics;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.testing.ManualScheduler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a reply leaves behind, on a manual clock: the node's reply times that the silent-node
 * witness reads (kept by {@link RecentLatencies} beside its windows, and taken anew once the node
 * was forgotten), and the call's {@code dyno.op} sample ({@link OpTimers}, the timer that
 * {@link Meters#opTimer} names).
 */
class ReplyRecordTest {
  static final Host A = CallDeciderTest.A;
  static final Host B = CallDeciderTest.B;
  static final long MS = 1_000_000L;

  final ManualScheduler clock = new ManualScheduler();
  final DynoConfig cfg = DynoConfig.builder().applicationName("test").build();
  final Registry registry = new DefaultRegistry();
  final Meters meters = new Meters(registry, "test");
  final HealthTracker health =
      new HealthTracker(() -> cfg, clock, clock, Runnable::run, h -> 0L, h -> {}, meters);
  final RecentLatencies latencies = new RecentLatencies(clock, health, () -> cfg);

  /** A's request is sent now; A and B then keep answering quickly for 200 ms. */
  void bothKeepAnswering() {
    for (int i = 0; i < 20; i++) {
      clock.advance(Duration.ofMillis(10));
      latencies.record(A, MS);
      latencies.record(B, MS);
    }
  }

  @Test
  void aNodeThatKeepsAnsweringIsNotTakenForSilent() {
    latencies.record(A, MS);
    bothKeepAnswering();
    health.timedOut(A, 200 * MS); // one lost reply: A answered others since
    assertThat(health.isUp(A)).isTrue();
  }

  @Test
  void aNodeForgottenAndBackHasItsRepliesSeenByTheWitnessAgain() {
    latencies.record(A, MS);
    latencies.record(B, MS);
    health.remove(A); // left the topology; the latencies still hold its windows
    bothKeepAnswering();
    health.timedOut(A, 200 * MS);
    assertThat(health.isUp(A)).isTrue();
  }

  @Test
  void aSilentNodeIsStillWitnessedThroughTheKeptRecord() {
    latencies.record(A, MS);
    clock.advance(Duration.ofMillis(10)); // A's request is sent now and never answered
    for (int i = 0; i < 20; i++) {
      clock.advance(Duration.ofMillis(10));
      latencies.record(B, MS);
    }
    health.timedOut(A, 200 * MS);
    assertThat(health.isUp(A)).isFalse();
  }

  @Test
  void opSamplesGoToTheTimerThatMetersNames() {
    OpTimers timers = new OpTimers(meters);
    timers.record("GET", Outcome.SUCCESS, "rack1", 5 * MS);
    timers.record("GET", Outcome.SUCCESS, "rack1", 7 * MS);
    timers.record("GET", Outcome.TIMEOUT, "rack1", 9 * MS);
    meters.opTimer("GET", "success", "rack1").record(1 * MS, TimeUnit.NANOSECONDS);

    assertThat(meters.opTimer("GET", "success", "rack1").count()).isEqualTo(3);
    assertThat(meters.opTimer("GET", "success", "rack1").totalTime()).isEqualTo(13 * MS);
    assertThat(registry
            .timer(meters.id(
                DynoMetrics.OP_LATENCY, "command", "GET", "outcome", "timeout", "rack", "rack1"))
            .count())
        .isEqualTo(1);
  }
}
