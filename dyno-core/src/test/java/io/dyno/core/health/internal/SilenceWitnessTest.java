package io.dyno.core.health.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.testing.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A timeout takes a node out of rotation only when its silence is witnessed: it has not answered
 * since the request was sent, while other nodes kept answering quickly long after. When the client
 * itself stalls (GC, a starved CPU) every node is late together and none is blamed (manual clock;
 * silentNodeAfter 150 ms).
 */
class SilenceWitnessTest {
  static final Host A = HealthTrackerTest.A;
  static final Host B = HealthTrackerTest.B;
  static final Host C =
      Host.builder("127.0.0.1", 7003).rack("rack3").datacenter("dc1").build();
  static final long MS = 1_000_000L;

  final ManualScheduler clock = new ManualScheduler();
  final List<Runnable> ioQueue = new ArrayList<>();
  final HealthTracker health = new HealthTracker(
      () -> DynoConfig.builder().applicationName("test").build(),
      clock,
      clock,
      ioQueue::add,
      h -> 0L,
      h -> {},
      new Meters(new DefaultRegistry(), "test"));

  void advance(long ms) {
    clock.advance(Duration.ofMillis(ms));
  }

  /** {@code host} answers now a request it took {@code tookMs} over. */
  void replies(Host host, long tookMs) {
    health.replyTimes(host).replied(clock.nanoTime(), tookMs * MS);
  }

  /**
   * 10 ms on, a request goes to A; for the next 200 ms A answers its other requests (the node is
   * alive, this one reply was lost) and B answers, all quickly.
   */
  void aRequestToAThenAAndBAnswerOthersFor200Ms() {
    advance(10);
    for (int i = 0; i < 20; i++) {
      advance(10);
      replies(B, 1);
      replies(A, 1);
    }
  }

  @Test
  void aSilentNodeWhosePeersKeepAnsweringLeavesRotationAtOnce() {
    replies(A, 1);
    advance(10); // A's request is sent now and never answered
    for (int i = 0; i < 20; i++) {
      advance(10);
      replies(B, 1);
      replies(C, 2);
    }
    health.timedOut(A, 200 * MS);
    assertThat(health.isUp(A)).isFalse();
    assertThat(health.isUp(B)).isTrue();
    assertThat(health.isUp(C)).isTrue();
  }

  @Test
  void aNodeThatAnsweredSinceTheRequestWasSentIsNotSilentButLaggingAndSteeredAwayFrom() {
    aRequestToAThenAAndBAnswerOthersFor200Ms();
    health.timedOut(A, 200 * MS);
    assertThat(health.isUp(A)).as("alive: not out of rotation").isTrue();
    assertThat(health.score(A)).isZero();
    assertThat(health.isSteered(A))
        .as("its reply is late while it and B answer quickly: calls go elsewhere first")
        .isTrue();
    assertThat(health.isPreferred(B)).isTrue();
  }

  @Test
  void aLaggingNodeIsPreferredAgainOnlyAfterFiveSecondsOfProbesWithinSilentNodeAfter() {
    // A node losing packets answers most probes in time: three in a row would let it back to
    // stall the next calls sent to it, again and again.
    aRequestToAThenAAndBAnswerOthersFor200Ms();
    health.timedOut(A, 200 * MS);
    assertThat(
            HealthTracker.GOOD_PROBES_AFTER_LAGGING * HealthTracker.QUICK_PROBE_INTERVAL.toMillis())
        .isEqualTo(5_000);
    for (int i = 0; i < HealthTracker.GOOD_PROBES_AFTER_LAGGING; i++) {
      assertThat(health.isPreferred(A)).as("after %d good probes", i).isFalse();
      advance(HealthTracker.QUICK_PROBE_INTERVAL.toMillis());
      ioQueue.remove(0).run(); // the probe, on the I/O executor: answers at once
    }
    assertThat(health.isPreferred(A)).isTrue();
  }

  @Test
  void aTimeoutShorterThanSilentNodeAfterSteersNothing() {
    aRequestToAThenAAndBAnswerOthersFor200Ms();
    health.timedOut(A, 100 * MS); // the call's share of its deadline was short: says nothing
    assertThat(health.isPreferred(A)).isTrue();
  }

  @Test
  void aClientStallThatMakesEveryNodeLateTakesNoneOutOfRotation() {
    for (Host h : List.of(A, B, C)) {
      replies(h, 1);
    }
    advance(1); // requests sent to all three, then the client stalls for 200 ms
    advance(200);
    // Once it runs again, the first reply it reads (B's) took the whole stall, then the timers
    // of the others fire.
    replies(B, 200);
    health.timedOut(A, 200 * MS);
    health.timedOut(C, 200 * MS);
    assertThat(health.isUp(A)).as("B's reply was late too: no witness").isTrue();
    assertThat(health.isPreferred(A))
        .as("nor lagging: nothing answered quickly")
        .isTrue();
    assertThat(health.isUp(C)).isTrue();
    assertThat(clock.pendingTasks()).as("one held verdict for each node").isEqualTo(2);
    health.timedOut(A, 190 * MS); // more of A's requests, late for the same reason
    assertThat(clock.pendingTasks()).as("held verdicts are not piled up").isEqualTo(2);

    // Traffic flows again: every node answers quickly, the held verdicts find each node alive.
    for (int i = 0; i < 5; i++) {
      advance(10);
      for (Host h : List.of(A, B, C)) {
        replies(h, 1);
      }
    }
    advance(HealthTracker.SILENCE_GRACE.toMillis());
    for (Host h : List.of(A, B, C)) {
      assertThat(health.isPreferred(h)).as("%s, not even steered", h).isTrue();
      assertThat(health.score(h)).as("not even a point of error score").isZero();
    }
    assertThat(health.downCount()).isZero();
    assertThat(clock.pendingTasks()).as("no probe of anyone").isZero();
  }

  @Test
  void aSilentNodeWhosePeersHadNoTrafficIsHeldThenTakenOutWhenTheyAnswer() {
    advance(10); // A's request is sent now; no other node has traffic
    advance(200);
    health.timedOut(A, 200 * MS);
    assertThat(health.isUp(A)).as("not witnessed yet: held").isTrue();
    advance(10);
    replies(B, 1); // the failover to B answers at once
    assertThat(health.isUp(A)).as("re-checked only after the grace").isTrue();
    assertThat(ioQueue).as("nothing on the caller's thread or the I/O executor").isEmpty();
    advance(HealthTracker.SILENCE_GRACE.toMillis() - 10);
    assertThat(health.isUp(A)).as("re-checked on the scheduler, witnessed").isFalse();
    assertThat(health.isUp(B)).isTrue();
  }

  @Test
  void aNodeWhoseLateReplyComesBeforeTheSecondLookIsSteeredAsLaggingWhenItsPeersWereQuick() {
    // A multiplexed client's every caller waits behind a lost packet on A's connection: nothing
    // witnesses the timeout at once; the retries answer quickly on B, then A's held replies come.
    replies(B, 1);
    advance(10); // A's request is sent now
    advance(166);
    health.timedOut(A, 166 * MS);
    assertThat(health.isPreferred(A)).as("not witnessed yet: held").isTrue();
    advance(5);
    replies(B, 1); // the retry, elsewhere
    advance(30);
    replies(A, 200); // the retransmission: A's replies flow again, late
    advance(HealthTracker.SILENCE_GRACE.toMillis());
    assertThat(health.isUp(A)).as("it answered: not silent").isTrue();
    assertThat(health.isSteered(A)).as("late alone while B was quick: lagging").isTrue();
    assertThat(health.isPreferred(B)).isTrue();
  }

  @Test
  void aHeldVerdictThatNoOtherNodeWitnessesIsDropped() {
    advance(10); // A's request is sent now; no other node has traffic
    advance(200);
    health.timedOut(A, 200 * MS);
    advance(20);
    replies(B, 180); // B answers, but only a request that was as late as A's
    advance(HealthTracker.SILENCE_GRACE.toMillis());
    assertThat(health.isUp(A)).isTrue();
    assertThat(health.score(A)).isZero();
    assertThat(clock.pendingTasks()).isZero();

    // A later timeout is judged afresh, and witnessed this time.
    advance(100);
    replies(B, 1);
    health.timedOut(A, 300 * MS);
    assertThat(health.isUp(A)).isFalse();
  }
}
