package io.dyno.core.health.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.DynoConfigBuilder;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.testing.ManualScheduler;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * Node health on a manual clock: a silent node leaves rotation at once while its peers keep
 * answering, a short share's timeout is not blamed, a node comes back only after three good probes
 * in a row (run on the I/O executor, never the caller's thread), and a steered node is preferred
 * again once its probes are fast. Timeouts while the client itself stalled are in
 * {@link SilenceWitnessTest}.
 */
class HealthTrackerTest {
  static final Host A =
      Host.builder("127.0.0.1", 7001).rack("rack1").datacenter("dc1").build();
  static final Host B =
      Host.builder("127.0.0.1", 7002).rack("rack2").datacenter("dc1").build();

  final ManualScheduler clock = new ManualScheduler();
  final Meters meters = new Meters(new DefaultRegistry(), "test");
  /** What each probe does, in order: how long it takes (ms), or -1 for no answer. */
  final Deque<Long> probeAnswers = new ArrayDeque<>();

  final List<String> probeThreads = new ArrayList<>();
  final List<Runnable> ioQueue = new ArrayList<>();
  /** The I/O executor: tasks wait here until {@link #runIo()} runs them (as a pool thread would). */
  final Executor io = ioQueue::add;

  HealthTracker tracker(DynoConfigBuilder b) {
    DynoConfig cfg = b.applicationName("test").build();
    return new HealthTracker(() -> cfg, clock, clock, io, h -> probe(), h -> {}, meters);
  }

  private long probe() {
    probeThreads.add(Thread.currentThread().getName());
    long ms = probeAnswers.isEmpty() ? 0 : probeAnswers.poll();
    if (ms < 0) {
      return -1;
    }
    clock.advance(Duration.ofMillis(ms)); // the probe's own round trip
    return ms * 1_000_000;
  }

  /** Moves the clock by {@code ms}, then runs the probes that came due on the I/O executor. */
  void advance(long ms) {
    clock.advance(Duration.ofMillis(ms));
    runIo();
  }

  /** A times out after waiting {@code waitedMs} for its reply, while B kept answering in 1 ms. */
  void silentWhileBAnswers(HealthTracker h, long waitedMs) {
    clock.advance(Duration.ofMillis(waitedMs));
    h.replyTimes(B).replied(clock.nanoTime(), 1_000_000L);
    h.timedOut(A, waitedMs * 1_000_000L);
  }

  void runIo() {
    while (!ioQueue.isEmpty()) {
      ioQueue.remove(0).run();
    }
  }

  @Test
  void aTimeoutAfterAtLeastSilentNodeAfterTakesTheNodeOutAtOnce() {
    HealthTracker h = tracker(DynoConfig.builder().silentNodeAfter(Duration.ofMillis(150)));
    silentWhileBAnswers(h, 166);
    assertThat(h.isUp(A)).isFalse();
    assertThat(h.isPreferred(A)).isFalse();
    assertThat(h.downCount()).isEqualTo(1);
    assertThat(ioQueue).as("no probe runs on the caller's thread").isEmpty();
  }

  @Test
  void aSilentVerdictAbandonsTheCallsWaitingOnTheNodeOnceAndALaggingOneDoesNot() {
    DynoConfig cfg = DynoConfig.builder()
        .applicationName("test")
        .silentNodeAfter(Duration.ofMillis(150))
        .build();
    List<Host> abandoned = new ArrayList<>();
    HealthTracker h =
        new HealthTracker(() -> cfg, clock, clock, io, x -> probe(), abandoned::add, meters);
    // Lagging: A answered other requests since this one was sent, B quickly after: steered only.
    long sent = clock.nanoTime();
    clock.advance(Duration.ofMillis(200));
    h.replyTimes(A).replied(clock.nanoTime(), 1_000_000L);
    h.replyTimes(B).replied(clock.nanoTime(), 1_000_000L);
    h.timedOut(A, clock.nanoTime() - sent);
    assertThat(h.isUp(A)).isTrue();
    assertThat(abandoned).as("a lagging node keeps its calls").isEmpty();

    silentWhileBAnswers(h, 200);
    silentWhileBAnswers(h, 200); // a second timeout on a node already out
    assertThat(h.isUp(A)).isFalse();
    assertThat(abandoned).as("abandoned once, with the silent verdict").containsExactly(A);
  }

  @Test
  void aTimeoutOfAShortShareIsNotHeldAgainstTheNode() {
    HealthTracker h = tracker(DynoConfig.builder().silentNodeAfter(Duration.ofMillis(150)));
    for (int i = 0; i < 100; i++) {
      silentWhileBAnswers(h, 149);
    }
    assertThat(h.isUp(A)).isTrue();
    assertThat(h.score(A)).isZero();
  }

  @Test
  void aNodeComesBackOnlyAfterThreeGoodProbesInARowAGoodOneFollowedQuickly() {
    HealthTracker h = tracker(DynoConfig.builder());
    silentWhileBAnswers(h, 200);
    long quick = HealthTracker.QUICK_PROBE_INTERVAL.toMillis();
    // good, good, lost, good, too slow (a retransmit), good, good, good: from the end of a good
    // probe the next waits the quick interval, from a bad one the cool-down
    probeAnswers.addAll(List.of(1L, 1L, -1L, 1L, 400L, 1L, 1L, 1L));
    long[] waits = {1000, quick, quick, 1000, quick, 1000, quick};
    for (int probe = 1; probe <= 7; probe++) {
      advance(waits[probe - 1] - 1);
      assertThat(probeThreads).as("probe %d not yet due", probe).hasSize(probe - 1);
      advance(1);
      assertThat(probeThreads).as("probe %d ran", probe).hasSize(probe);
      assertThat(h.isUp(A)).as("after probe %d", probe).isFalse();
    }
    advance(quick);
    assertThat(h.isUp(A)).as("the third good probe in a row").isTrue();
    assertThat(probeThreads).hasSize(8);
    advance(5000);
    assertThat(probeThreads).as("no probe once it is back").hasSize(8);
  }

  @Test
  void aGoodProbeIsNotFollowedSoonerThanAShorterCoolDown() {
    assertThat(HealthTracker.probeWait(
            DynoConfig.builder()
                .applicationName("t")
                .healthCoolDown(Duration.ofMillis(100))
                .build(),
            0))
        .isEqualTo(Duration.ofMillis(100));
    assertThat(HealthTracker.probeWait(DynoConfig.defaults(), 0))
        .isEqualTo(HealthTracker.QUICK_PROBE_INTERVAL);
  }

  @Test
  void failedProbesWaitLongerOnlyUpToHealthMaxCoolDown() {
    HealthTracker h = tracker(DynoConfig.builder()
        .healthCoolDown(Duration.ofMillis(500))
        .healthMaxCoolDown(Duration.ofSeconds(2)));
    silentWhileBAnswers(h, 200);
    probeAnswers.addAll(List.of(-1L, -1L, -1L, -1L));
    advance(500); // probe 1 fails: next in 1 s
    advance(999);
    assertThat(probeThreads).hasSize(1);
    advance(1); // probe 2 fails: next in 2 s (the ceiling)
    advance(2000); // probe 3
    advance(2000); // probe 4
    assertThat(probeThreads).hasSize(4);
    assertThat(HealthTracker.probeWait(DynoConfig.defaults(), 7))
        .as("by default a probe every second, failed or not")
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void repeatedConnectionFailuresStillTakeANodeOut() {
    HealthTracker h = tracker(DynoConfig.builder().healthErrorThreshold(3));
    h.failure(A);
    h.failure(A);
    assertThat(h.isUp(A)).isTrue();
    h.failure(A);
    assertThat(h.isUp(A)).isFalse();
  }

  @Test
  void aSteeredNodeIsNotPreferredButUpUntilThreeProbesAnswerUnderItsBound() {
    HealthTracker h = tracker(DynoConfig.builder());
    h.steer(A, 5_000_000L);
    assertThat(h.isUp(A)).as("steered is not failed").isTrue();
    assertThat(h.isPreferred(A)).isFalse();
    assertThat(h.isSteered(A)).isTrue();
    assertThat(h.downCount()).isZero();
    // slow, fast, fast, slow, fast, fast, fast
    probeAnswers.addAll(List.of(50L, 1L, 1L, 50L, 1L, 1L, 1L));
    long every = HealthTracker.QUICK_PROBE_INTERVAL.toMillis();
    for (int probe = 1; probe <= 6; probe++) {
      advance(every);
      assertThat(h.isPreferred(A)).as("after probe %d", probe).isFalse();
    }
    advance(every);
    assertThat(h.isPreferred(A)).isTrue();
    assertThat(h.isSteered(A)).isFalse();
  }

  @Test
  void aSteeredNodeWhoseLatencyProbeGetsNoAnswerIsOutOfRotationAndBackOnHealthProbes() {
    HealthTracker h = tracker(DynoConfig.builder());
    h.steer(A, 5_000_000L);
    probeAnswers.add(-1L); // killed while steered away from: no call found out
    advance(HealthTracker.QUICK_PROBE_INTERVAL.toMillis());
    assertThat(h.isUp(A)).as("gone, not slow").isFalse();
    assertThat(h.isSteered(A)).isFalse();
    // restarted and cold: answers in 20 ms, over the 5 ms it was steered at, under silentNodeAfter
    probeAnswers.addAll(List.of(20L, 20L, 20L));
    for (int probe = 1; probe <= HealthTracker.GOOD_PROBES; probe++) {
      advance(1000);
    }
    assertThat(h.isUp(A)).isTrue();
  }

  @Test
  void aSteeredNodeThatFallsSilentIsOutOfRotationAndProbedAsSuch() {
    HealthTracker h = tracker(DynoConfig.builder());
    h.steer(A, 5_000_000L);
    silentWhileBAnswers(h, 300);
    assertThat(h.isUp(A)).isFalse();
    assertThat(h.isSteered(A)).isFalse();
    for (int probe = 1; probe <= HealthTracker.GOOD_PROBES; probe++) {
      advance(1000);
    }
    assertThat(probeThreads)
        .as("re-admission probes only, the latency probe was cancelled")
        .hasSize(3);
    assertThat(h.isUp(A)).isTrue();
    assertThat(h.isPreferred(A)).isTrue();
  }
}
