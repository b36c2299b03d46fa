package io.dyno.core.exec.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.DeadlineExceededException;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.PoolTimeoutException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.DynoConfigBuilder;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.engine.internal.CallSpec;
import io.dyno.core.engine.internal.FailureReport;
import io.dyno.core.exec.internal.CallDecider.Answer;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.routing.internal.DivergedKeys;
import io.dyno.core.testing.ManualScheduler;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The decision machine on its own, no engine: the answers for each outcome, and the budgets it
 * gives each attempt under a deadline (a manual clock drives it).
 */
class CallDeciderTest {
  static final Host A =
      Host.builder("127.0.0.1", 7001).rack("rack1").datacenter("dc1").build();
  static final Host B =
      Host.builder("127.0.0.1", 7002).rack("rack2").datacenter("dc1").build();
  static final Host C =
      Host.builder("127.0.0.1", 7003).rack("rack3").datacenter("dc1").build();

  final ManualScheduler clock = new ManualScheduler();
  final Meters meters = new Meters(new DefaultRegistry(), "test");

  CallDecider decider(
      DynoConfigBuilder cfg, Duration deadline, boolean idempotent, HedgePolicy hedge) {
    DynoConfig config = cfg.applicationName("test").build();
    return decider(config, health(config), deadline, idempotent, hedge);
  }

  HealthTracker health(DynoConfig config) {
    return new HealthTracker(() -> config, clock, clock, Runnable::run, h -> 0L, h -> {}, meters);
  }

  CallDecider decider(
      DynoConfig config,
      HealthTracker health,
      Duration deadline,
      boolean idempotent,
      HedgePolicy hedge) {
    return new CallDecider(
        CallSpec.builder("GET", config)
            .key(null)
            .on(List.of(A, B, C))
            .idempotent(idempotent)
            .build(),
        List.of(A, B, C),
        Deadline.after(deadline, clock, clock.nanoTime()),
        idempotent,
        hedge,
        config,
        new CallDecider.Context(health, () -> 0.5, meters, new DivergedKeys(0)),
        clock.nanoTime());
  }

  @Test
  void aCommandThatTimedOutQueuedBehindAnUnansweredOneJudgesTheNodeAsSilent() {
    DynoConfig config = DynoConfig.builder()
        .applicationName("test")
        .silentNodeAfter(Duration.ofMillis(150))
        .build();
    HealthTracker health = health(config);
    CallDecider d = decider(config, health, Duration.ofMillis(500), true, HedgePolicy.off());
    clock.advance(Duration.ofMillis(200));
    health.replyTimes(B).replied(clock.nanoTime(), 1_000_000L); // B answers quickly meanwhile

    d.failed(
        A,
        FailureReport.notSentBehindUnanswered(Duration.ofMillis(200).toNanos()),
        false,
        new IOException("not sent: queued behind a write A never answered"));

    assertThat(health.isUp(A))
        .as("A answered nothing for 200 ms while B answered: silent, though this was unsent")
        .isFalse();
  }

  static PoolTimeoutException poolTimeout(Host h) {
    return new PoolTimeoutException(h, 1, 200_000_000L, 0, 0, 8);
  }

  @Test
  void aDeadlineIsSharedBetweenTheCandidatesForBorrowingButNeverBelowTheFloor() {
    CallDecider d = decider(
        DynoConfig.builder().maxTimeoutWhenExhausted(Duration.ofMillis(800)),
        Duration.ofMillis(600),
        true,
        null);
    assertThat(d.next()).isEqualTo(Answer.RUN);
    assertThat(d.host()).isEqualTo(A);
    assertThat(d.borrowBudget()).as("three candidates share 600 ms").isEqualTo(200_000_000L);
    clock.advance(Duration.ofMillis(200));
    assertThat(d.notSent(poolTimeout(A))).isEqualTo(Answer.RUN);
    assertThat(d.host()).isEqualTo(B);
    assertThat(d.borrowBudget()).as("two share the 400 ms left").isEqualTo(200_000_000L);
    clock.advance(Duration.ofMillis(195));
    assertThat(d.notSent(poolTimeout(B))).isEqualTo(Answer.RUN);
    assertThat(d.host()).isEqualTo(C);
    assertThat(d.borrowBudget())
        .as("the last candidate has all that is left")
        .isEqualTo(205_000_000L);
  }

  @Test
  void theFloorAppliesWhenTheShareWouldBeTiny() {
    CallDecider d = decider(DynoConfig.builder(), Duration.ofMillis(15), true, null);
    d.next();
    assertThat(d.borrowBudget()).isEqualTo(CallBudgets.BORROW_FLOOR_NANOS);
    clock.advance(Duration.ofMillis(15));
    assertThat(d.borrowBudget()).isEqualTo(-1);
    assertThat(d.pastDeadline()).isEqualTo(Answer.GIVE_UP);
    assertThat(d.error())
        .isInstanceOf(DeadlineExceededException.class)
        .hasMessageContaining("deadline of 15 ms");
    assertThat(d.outcome()).isEqualTo(Outcome.DEADLINE_EXCEEDED);
  }

  @Test
  void withoutADeadlineTheBorrowWaitsMaxTimeoutWhenExhaustedAndTheSocketIsLeftAlone() {
    CallDecider d = decider(
        DynoConfig.builder().maxTimeoutWhenExhausted(Duration.ofMillis(300)), null, true, null);
    d.next();
    assertThat(d.borrowBudget()).isEqualTo(300_000_000L);
    assertThat(d.sending(A)).isZero();
    assertThat(d.readCapNow()).isZero();
  }

  @Test
  void aSentFailureOfAnIdempotentCommandFailsOverAndOneOfANonIdempotentCommandGivesUp() {
    CallDecider get =
        decider(DynoConfig.builder().retryPolicy(RetryPolicy.retryNTimes(2)), null, true, null);
    get.next();
    get.sending(A);
    IOException reset = new IOException("reset");
    assertThat(get.failed(A, FailureReport.sent(FailureKind.CONNECTION), true, reset))
        .isEqualTo(Answer.RUN);
    assertThat(get.host()).isEqualTo(B);

    CallDecider incr = decider(DynoConfig.builder(), null, false, null);
    incr.next();
    incr.sending(A);
    assertThat(incr.failed(A, FailureReport.sent(FailureKind.TIMEOUT), true, reset))
        .isEqualTo(Answer.GIVE_UP);
    assertThat(incr.error())
        .isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining("not idempotent");
    assertThat(incr.outcome()).isEqualTo(Outcome.TIMEOUT);
  }

  @Test
  void anUnsentFailureMayGoToTheSameNodeOnlyWhenTheDriverSaysSo() {
    // idempotent: a non-idempotent write would stay in A's rack (RackDivergenceTest)
    CallDecider d =
        decider(DynoConfig.builder().retryPolicy(RetryPolicy.runOnce()), null, true, null);
    d.next();
    d.sending(A);
    assertThat(d.failed(A, FailureReport.notSent(false), true, new IOException("at capacity")))
        .isEqualTo(Answer.RUN);
    assertThat(d.host()).as("another replica").isEqualTo(B);
    d.sending(B);
    assertThat(d.failed(B, FailureReport.notSent(true), true, new IOException("closed first")))
        .isEqualTo(Answer.RUN);
    assertThat(d.host()).as("untried replicas come first").isEqualTo(C);
  }

  @Test
  void aDataErrorEndsTheCallWithTheErrorItself() {
    CallDecider d = decider(DynoConfig.builder(), null, true, null);
    d.next();
    d.sending(A);
    IllegalStateException wrongType = new IllegalStateException("WRONGTYPE");
    assertThat(d.failed(A, FailureReport.sent(FailureKind.DATA), true, wrongType))
        .isEqualTo(Answer.GIVE_UP);
    assertThat(d.error()).isSameAs(wrongType);
    assertThat(d.outcome()).isEqualTo(Outcome.DATA_ERROR);
  }

  @Test
  void aHedgeIsOneMorePartyAndTheFirstAnswerWins() {
    CallDecider d = decider(
        DynoConfig.builder(), Duration.ofSeconds(1), true, HedgePolicy.after(Duration.ofMillis(5)));
    d.next();
    d.sending(A);
    assertThat(d.hedgeDelay(new RecentLatencies(clock), A)).isEqualTo(5_000_000L);
    assertThat(d.hedge()).isEqualTo(Answer.HEDGE);
    assertThat(d.host()).isEqualTo(B);
    assertThat(d.hedge()).as("one hedge per call").isEqualTo(Answer.STOP);
    d.sending(B);
    assertThat(
            d.failed(B, FailureReport.sent(FailureKind.CONNECTION), true, new IOException("reset")))
        .as("the first attempt is still out: it decides")
        .isEqualTo(Answer.STOP);
    assertThat(d.succeeded(A, false)).isTrue();
    assertThat(d.succeeded(B, true)).as("a later answer is dropped").isFalse();
    assertThat(d.end(new IllegalStateException("late"))).isFalse();
    assertThat(d.lastNode()).isEqualTo(A);
  }

  @Test
  void aBackoffThatWouldOutlastTheDeadlineIsNotStarted() {
    CallDecider d = decider(
        DynoConfig.builder()
            .retryPolicy(
                RetryPolicy.exponentialBackoff(5, Duration.ofMillis(40), Duration.ofMillis(400))),
        Duration.ofMillis(30),
        true,
        null);
    d.next();
    d.sending(A);
    assertThat(d.failed(
            A,
            FailureReport.sent(FailureKind.REPLICA),
            true,
            new IllegalStateException("Peer Node")))
        .isEqualTo(Answer.RUN); // B is untried: no wait
    d.sending(B);
    d.failed(
        B, FailureReport.sent(FailureKind.REPLICA), true, new IllegalStateException("Peer Node"));
    d.sending(C);
    assertThat(d.failed(
            C,
            FailureReport.sent(FailureKind.REPLICA),
            true,
            new IllegalStateException("Peer Node")))
        .as("every candidate tried: back to one, after 20 ms, which still fits in 30 ms")
        .isEqualTo(Answer.BACK_OFF);
    assertThat(d.backoffNanos()).isEqualTo(20_000_000L);
    clock.advance(Duration.ofMillis(20));
    d.sending(d.host());
    assertThat(d.failed(
            d.host(),
            FailureReport.sent(FailureKind.REPLICA),
            true,
            new IllegalStateException("Peer")))
        .as("the next wait, 40 ms, would end past the deadline")
        .isEqualTo(Answer.GIVE_UP);
    assertThat(d.error()).isInstanceOf(DeadlineExceededException.class);
  }

  @Test
  void aNodeMerelySteeredAwayFromIsTriedBeforeOneOutOfRotation() {
    DynoConfig config =
        DynoConfig.builder().applicationName("test").healthErrorThreshold(1).build();
    HealthTracker health =
        new HealthTracker(() -> config, clock, clock, Runnable::run, h -> -1L, h -> {}, meters);
    health.failure(A); // the owner: out of rotation (silent, say)
    health.steer(B, 1_000_000L); // its replicas: slow on a loaded machine, still answering
    health.steer(C, 1_000_000L);
    CallDecider d = new CallDecider(
        CallSpec.builder("GET", config)
            .key(null)
            .on(List.of(A, B, C))
            .idempotent(true)
            .build(),
        List.of(A, B, C),
        Deadline.after(Duration.ofMillis(500), clock, clock.nanoTime()),
        true,
        null,
        config,
        new CallDecider.Context(health, () -> 0.5, meters, new DivergedKeys(0)),
        clock.nanoTime());
    assertThat(d.next()).isEqualTo(Answer.RUN);
    assertThat(d.host())
        .as("a slow node answers; a silent one holds the attempt")
        .isEqualTo(B);
    d.sending(B);
    d.failed(
        B, FailureReport.sent(FailureKind.REPLICA), true, new IllegalStateException("Peer Node"));
    assertThat(d.host()).isEqualTo(C);
    d.sending(C);
    d.failed(
        C, FailureReport.sent(FailureKind.REPLICA), true, new IllegalStateException("Peer Node"));
    assertThat(d.host()).as("out of rotation: the last resort, still tried").isEqualTo(A);
  }
}
