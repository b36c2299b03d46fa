package io.dyno.core.exec.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.DynoConfigBuilder;
import io.dyno.core.engine.internal.CallSpec;
import io.dyno.core.engine.internal.FailureReport;
import io.dyno.core.exec.internal.CallDecider.Answer;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.routing.internal.DivergedKeys;
import io.dyno.core.testing.ManualScheduler;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The wait for a reply under a deadline: each run gets its share of the time left, so that a read
 * on a silent node moves on in time; a timeout after a long enough wait takes the node out of
 * rotation, one after a short share does not blame it (manual clock).
 */
class ReplyShareTest {
  static final Host A = CallDeciderTest.A;
  static final Host B = CallDeciderTest.B;
  static final Host C = CallDeciderTest.C;

  final ManualScheduler clock = new ManualScheduler();
  final Meters meters = new Meters(new DefaultRegistry(), "test");
  HealthTracker health;

  CallDecider decider(DynoConfigBuilder cfg, Duration deadline, boolean idempotent) {
    DynoConfig config = cfg.applicationName("test").build();
    health = new HealthTracker(() -> config, clock, clock, Runnable::run, h -> 0L, h -> {}, meters);
    return new CallDecider(
        CallSpec.builder("GET", config)
            .key(null)
            .on(List.of(A, B, C))
            .idempotent(true)
            .build(),
        List.of(A, B, C),
        Deadline.after(deadline, clock, clock.nanoTime()),
        idempotent,
        null,
        config,
        new CallDecider.Context(health, () -> 0.5, meters, new DivergedKeys(0)),
        clock.nanoTime());
  }

  static final SocketTimeoutException SILENCE = new SocketTimeoutException("no reply");

  @Test
  void eachRunWaitsForItsReplyOnlyItsShareOfTheTimeLeft() {
    CallDecider d = decider(DynoConfig.builder(), Duration.ofMillis(600), true);
    assertThat(d.next()).isEqualTo(Answer.RUN);
    assertThat(d.sending(A)).as("three replicas share 600 ms").isEqualTo(200);
    clock.advance(Duration.ofMillis(200));
    assertThat(d.failed(A, FailureReport.sent(FailureKind.TIMEOUT), true, SILENCE))
        .isEqualTo(Answer.RUN);
    assertThat(d.host()).isEqualTo(B);
    assertThat(d.sending(B)).as("two share the 400 ms left").isEqualTo(200);
    clock.advance(Duration.ofMillis(200));
    assertThat(d.failed(B, FailureReport.sent(FailureKind.TIMEOUT), true, SILENCE))
        .isEqualTo(Answer.RUN);
    assertThat(d.sending(C)).as("the last run has all that is left").isEqualTo(200);
  }

  @Test
  void theShareCountsOnlyTheRunsTheRetryPolicyStillAllows() {
    CallDecider d =
        decider(DynoConfig.builder().retryPolicy("RetryNTimes:1"), Duration.ofMillis(600), true);
    d.next();
    assertThat(d.sending(A)).as("two runs in all: half each").isEqualTo(300);
  }

  @Test
  void aCommandThatMayNotRunAgainWaitsTheWholeTimeLeft() {
    CallDecider d = decider(DynoConfig.builder(), Duration.ofMillis(600), false);
    d.next();
    assertThat(d.sending(A)).isEqualTo(600);
  }

  @Test
  void theShareNeverFallsBelowTheFloor() {
    CallDecider d = decider(DynoConfig.builder(), Duration.ofMillis(24), true);
    d.next();
    assertThat(d.sending(A)).as("24 ms over 3 is 8 ms: the 10 ms floor").isEqualTo(10);
  }

  @Test
  void aRunThatTimedOutAfterItsWholeShareTakesTheSilentNodeOutOfRotation() {
    CallDecider d = decider(DynoConfig.builder(), Duration.ofMillis(500), true);
    d.next();
    assertThat(d.sending(A)).isEqualTo(167);
    clock.advance(Duration.ofMillis(167));
    health
        .replyTimes(C)
        .replied(clock.nanoTime(), 1_000_000L); // other nodes kept answering meanwhile
    assertThat(d.failed(A, FailureReport.sent(FailureKind.TIMEOUT), true, SILENCE))
        .isEqualTo(Answer.RUN);
    assertThat(health.isUp(A)).as("silent for 167 ms >= silentNodeAfter 150 ms").isFalse();
    assertThat(d.host()).isEqualTo(B);
    assertThat(d.sending(B)).isEqualTo(167);
    assertThat(d.succeeded(B, false)).isTrue();
    assertThat(health.isUp(B)).isTrue();
  }

  @Test
  void aTimeoutAfterAShortShareIsNotBlamedOnTheNode() {
    CallDecider d = decider(DynoConfig.builder(), Duration.ofMillis(300), true);
    d.next();
    assertThat(d.sending(A)).isEqualTo(100);
    clock.advance(Duration.ofMillis(100));
    assertThat(d.failed(A, FailureReport.sent(FailureKind.TIMEOUT), true, SILENCE))
        .isEqualTo(Answer.RUN);
    assertThat(health.isUp(A)).isTrue();
    assertThat(health.score(A)).as("not even a point of error score").isZero();
  }

  @Test
  void withoutADeadlineATimeoutWaitedTheSocketTimeoutAndTheNodeIsSilent() {
    CallDecider d = decider(DynoConfig.builder(), null, true);
    d.next();
    assertThat(d.sending(A)).isZero();
    health.replyTimes(B).replied(clock.nanoTime(), 1_000_000L);
    d.failed(A, FailureReport.sent(FailureKind.TIMEOUT), true, SILENCE);
    assertThat(health.isUp(A)).isFalse();
  }
}
