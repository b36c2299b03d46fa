package io.dyno.core.exec.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.PoolTimeoutException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.engine.internal.CallSpec;
import io.dyno.core.engine.internal.FailureReport;
import io.dyno.core.exec.internal.CallDecider.Answer;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.routing.internal.DivergedKeys;
import io.dyno.core.testing.ManualScheduler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * What keeps the racks from drifting apart while a key's preferred owner is away: a non-idempotent
 * write is not sent to another rack, an idempotent write that was is remembered so the key's later
 * calls go where it was written, and a write the local store refused says it may be applied
 * elsewhere. The decision machine on its own, a manual clock, no I/O.
 */
class RackDivergenceTest {
  static final Host A =
      Host.builder("127.0.0.1", 7001).rack("rack1").datacenter("dc1").build();
  static final Host B =
      Host.builder("127.0.0.1", 7002).rack("rack2").datacenter("dc1").build();
  static final Host C =
      Host.builder("127.0.0.1", 7003).rack("rack3").datacenter("dc1").build();
  static final List<Host> OWNERS = List.of(A, B, C);

  final ManualScheduler clock = new ManualScheduler();
  final Meters meters = new Meters(new DefaultRegistry(), "test");
  final DivergedKeys diverged = new DivergedKeys(100);

  DynoConfig config =
      DynoConfig.builder().applicationName("test").healthErrorThreshold(1).build();
  HealthTracker health = newHealth();

  HealthTracker newHealth() {
    return new HealthTracker(() -> config, clock, clock, Runnable::run, h -> 0L, h -> {}, meters);
  }

  CallDecider call(String command, Object key, boolean idempotent, boolean rerunUnknown) {
    return call(command, key, idempotent, rerunUnknown, null);
  }

  CallDecider call(
      String command, Object key, boolean idempotent, boolean rerunUnknown, HedgePolicy hedge) {
    return new CallDecider(
        CallSpec.builder(command, config)
            .key(key)
            .on(OWNERS)
            .idempotent(idempotent)
            .build(),
        OWNERS,
        Deadline.after(Duration.ofMillis(500), clock, clock.nanoTime()),
        rerunUnknown,
        hedge,
        config,
        new CallDecider.Context(health, () -> 0.5, meters, diverged),
        clock.nanoTime());
  }

  /** Runs the call's first attempt to a success; returns the node that answered. */
  Host served(CallDecider d) {
    assertThat(d.next()).isEqualTo(Answer.RUN);
    Host h = d.host();
    d.sending(h);
    assertThat(d.succeeded(h, false)).isTrue();
    return h;
  }

  @Test
  void incrIsNotSentToAnotherRackWhileItsPreferredOwnerIsOutOfRotation() {
    health.failure(A);
    CallDecider incr = call("INCR", "counter", false, false);
    assertThat(incr.next()).isEqualTo(Answer.GIVE_UP);
    assertThat(incr.error())
        .isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining("INCR on key \"counter\" was not sent to another rack")
        .hasMessageContaining(A + " is out of rotation")
        .hasMessageContaining("failoverNonIdempotentWrites=true");
    assertThat(((DynoConnectionException) incr.error()).host()).isEqualTo(A);
  }

  @Test
  void incrGoesToItsPreferredOwnerEvenWhileItIsSteeredAwayFrom() {
    // Slow, but in rotation. Sent to rack2, it would miss rack1 should rack1 die meanwhile, and a
    // node steered away from gets no calls to find that out by.
    health.steer(A, 1_000_000);
    assertThat(served(call("INCR", "counter", false, false))).isEqualTo(A);
    assertThat(served(call("GET", "counter", true, true))).as("reads move").isEqualTo(B);
    assertThat(diverged.rackOf("counter")).as("not remembered").isNull();
  }

  @Test
  void incrStaysInItsRackWhenItsPreferredOwnerCouldNotTakeItEvenIfOnlyBusy() {
    // A dying owner first looks busy (its connect still pending): moved then, the INCR would be
    // applied by rack2 and never by rack1.
    CallDecider pooled = call("INCR", "counter", false, false);
    pooled.next();
    PoolTimeoutException exhausted = new PoolTimeoutException(A, 3, 300_000_000L, 0, 0, 2);
    assertThat(pooled.notSent(exhausted)).isEqualTo(Answer.GIVE_UP);
    assertThat(pooled.error())
        .isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining("INCR on key \"counter\" was not sent to another rack")
        .hasMessageContaining("could not take it")
        .hasMessageContaining("timed out waiting for a connection")
        .hasMessageContaining("failoverNonIdempotentWrites");

    CallDecider multiplexed = call("INCR", "counter", false, false);
    multiplexed.next();
    multiplexed.sending(A);
    Answer atCapacity = multiplexed.failed(
        A, FailureReport.notSent(false), true, new IOException("in-flight limit reached"));
    assertThat(atCapacity).isEqualTo(Answer.GIVE_UP);
    assertThat(diverged.rackOf("counter")).as("never served elsewhere").isNull();

    CallDecider set = call("SET", "k", true, true);
    set.next();
    assertThat(set.notSent(exhausted)).as("an idempotent write moves on").isEqualTo(Answer.RUN);
    assertThat(set.host()).isEqualTo(B);
  }

  @Test
  void incrIsNotSentToAnotherRackWhenItsPreferredOwnerCannotBeReached() {
    CallDecider incr = call("INCR", "counter", false, false);
    assertThat(incr.next()).isEqualTo(Answer.RUN);
    assertThat(incr.host()).isEqualTo(A);
    DynoConnectionException refused = new DynoConnectionException(
        "connect refused", A, FailureKind.CONNECTION, new IOException("refused"));
    assertThat(incr.notSent(refused)).isEqualTo(Answer.GIVE_UP);
    assertThat(incr.error())
        .hasMessageContaining(A + " could not take it (connect refused)")
        .hasMessageContaining("failoverNonIdempotentWrites");

    CallDecider multiplexed = call("INCR", "counter", false, false);
    multiplexed.next();
    multiplexed.sending(A);
    Answer unreachable = multiplexed.failed(
        A, FailureReport.unreachable(), true, new IOException("Connection refused"));
    assertThat(unreachable).isEqualTo(Answer.GIVE_UP);
    assertThat(multiplexed.error()).hasMessageContaining(A + " could not take it");

    CallDecider set = call("SET", "k", true, true);
    set.next();
    assertThat(set.notSent(refused)).as("an idempotent write moves on").isEqualTo(Answer.RUN);
    assertThat(set.host()).isEqualTo(B);
  }

  @Test
  void failoverNonIdempotentWritesLetsTheWriteGoToAnotherRack() {
    config = DynoConfig.builder()
        .applicationName("test")
        .healthErrorThreshold(1)
        .failoverNonIdempotentWrites(true)
        .build();
    health = newHealth();
    health.failure(A);
    assertThat(served(call("INCR", "counter", false, false))).isEqualTo(B);
    assertThat(diverged.rackOf("counter")).as("and it is remembered").isEqualTo("rack2");
  }

  @Test
  void retryNonIdempotentReRunsOnTheSameNodeNeverInAnotherRack() {
    CallDecider incr = call("INCR", "counter", false, true);
    incr.next();
    incr.sending(A);
    Answer again =
        incr.failed(A, FailureReport.sent(FailureKind.CONNECTION), true, new IOException("reset"));
    assertThat(again).isIn(Answer.RUN, Answer.BACK_OFF);
    assertThat(incr.host()).isEqualTo(A);
  }

  @Test
  void aWriteTheLocalStoreRefusedSaysItMayHaveBeenAppliedInTheOtherRacks() {
    CallDecider incr = call("INCR", "counter", false, false);
    incr.next();
    incr.sending(A);
    RuntimeException storage = new RuntimeException("ERR Storage: Datastore refused connection");
    assertThat(incr.failed(A, FailureReport.sent(FailureKind.REPLICA), true, storage))
        .isEqualTo(Answer.GIVE_UP);
    assertThat(incr.error())
        .hasMessageContaining("not idempotent")
        .hasMessageContaining("INCR may have been applied in rack2, rack3 though not in rack1");

    CallDecider get = call("GET", "k", true, false);
    get.next();
    get.sending(A);
    get.failed(A, FailureReport.sent(FailureKind.REPLICA), true, storage);
    assertThat(String.valueOf(get.error())).doesNotContain("may have been applied");
  }

  @Test
  void aLocalRedisRefusalIsOneAnotherRackMayServe() {
    assertThat(FailureKind.isDynomiteReplicaError(
            "OOM command not allowed when used memory > 'maxmemory'."))
        .isTrue();
    assertThat(FailureKind.isLocalStoreRefusal("MISCONF Redis is configured to save RDB snapshots"))
        .isTrue();
    assertThat(FailureKind.isLocalStoreRefusal(
            "READONLY You can't write against a read only replica."))
        .isTrue();
    assertThat(FailureKind.isLocalStoreRefusal("WRONGTYPE Operation against a key"))
        .isFalse();
  }

  @Test
  void aWriteServedInAnotherRackSendsTheKeysLaterCallsThereWhileThatOwnerIsUp() {
    health.failure(A);
    assertThat(served(call("SET", "user:1", true, true))).isEqualTo(B);
    assertThat(served(call("GET", "user:2", true, true)))
        .as("a read elsewhere leaves nothing behind")
        .isEqualTo(B);
    assertThat(diverged.rackOf("user:1")).isEqualTo("rack2");
    assertThat(diverged.rackOf("user:2")).isNull();

    health = newHealth(); // A is back
    assertThat(served(call("GET", "user:1", true, true))).isEqualTo(B);
    assertThat(served(call("GET", "user:1".getBytes(StandardCharsets.UTF_8), true, true)))
        .as("the same key as bytes")
        .isEqualTo(B);
    assertThat(served(call("GET", "user:2", true, true))).isEqualTo(A);
    assertThat(served(call("HSET", "user:1", true, true))).isEqualTo(B);

    health.failure(B); // the rack that took it is away: the usual order, and the key moves
    assertThat(served(call("GET", "user:1", true, true))).isEqualTo(A);
    assertThat(served(call("HSET", "user:1", true, true))).isEqualTo(A);
    assertThat(diverged.rackOf("user:1")).isEqualTo("rack1");
  }

  @Test
  void aWholeValueWriteSentHomeOnceTheOwnerIsBackForgetsTheKey() {
    health.failure(A);
    assertThat(served(call("SET", "k", true, true))).isEqualTo(B);
    assertThat(served(call("SET", "k", true, true)))
        .as("while its owner is out of rotation")
        .isEqualTo(B);
    await(() -> health.isUp(A)); // probed back in rotation on the manual clock

    assertThat(served(call("GET", "k", true, true))).isEqualTo(B);
    assertThat(served(call("INCR", "k", false, false))).isEqualTo(B);
    assertThat(served(call("APPEND", "k", false, false))).isEqualTo(B);
    assertThat(served(call("SET", "k", false, false))).as("SET NX, SET GET").isEqualTo(B);
    assertThat(diverged.rackOf("k")).isEqualTo("rack2");

    CallDecider busy = call("SET", "k", true, true);
    busy.next();
    assertThat(busy.host()).as("sent home").isEqualTo(A);
    busy.notSent(new PoolTimeoutException(A, 2, 300_000_000L, 1, 1, 1));
    busy.sending(busy.host());
    busy.succeeded(busy.host(), false);
    assertThat(diverged.rackOf("k")).as("home did not take it").isEqualTo("rack2");

    assertThat(served(call("SET", "k", true, true))).isEqualTo(A);
    assertThat(diverged.rackOf("k")).as("forgotten").isNull();
    assertThat(served(call("GET", "k", true, true))).isEqualTo(A);
    assertThat(served(call("INCR", "k", false, false))).isEqualTo(A);

    for (String overwrite : List.of("SETEX", "PSETEX", "DEL")) {
      health.failure(A);
      served(call("SET", "k", true, true));
      await(() -> health.isUp(A));
      assertThat(served(call(overwrite, "k", true, true))).as(overwrite).isEqualTo(A);
      assertThat(diverged.rackOf("k")).as(overwrite).isNull();
    }
  }

  /** Advances the manual clock (running the health probes it schedules) until {@code done}. */
  private void await(BooleanSupplier done) {
    for (int i = 0; i < 600 && !done.getAsBoolean(); i++) {
      clock.advance(Duration.ofMillis(100));
    }
    assertThat(done.getAsBoolean()).as("within 60 s of manual time").isTrue();
  }

  @Test
  void aWriteMovedOffASteeredOwnerIsNotRememberedForItStillReplicates() {
    health.steer(A, 1_000_000);
    CallDecider set = call("SET", "slow", true, true);
    set.next();
    Host h = set.host();
    set.sending(h);
    set.succeeded(h, false);
    assertThat(h).as("steered away from").isNotEqualTo(A);
    assertThat(diverged.rackOf("slow")).isNull();
  }

  @Test
  void aWriteFailedOverAfterItsOwnerFailedItIsRemembered() {
    CallDecider set = call("SET", "k", true, true);
    set.next();
    set.sending(A);
    RuntimeException oom = new RuntimeException("OOM command not allowed");
    assertThat(set.failed(A, FailureReport.sent(FailureKind.REPLICA), true, oom))
        .isEqualTo(Answer.RUN);
    assertThat(set.host()).isEqualTo(B);
    set.sending(B);
    set.succeeded(B, false);
    assertThat(diverged.rackOf("k")).isEqualTo("rack2");
  }

  @Test
  void aReadOfAKeyWrittenElsewhereIsNotHedgedToTheOwnerThatMissedIt() {
    HedgePolicy hedge = HedgePolicy.after(Duration.ofMillis(5));
    RecentLatencies latencies = new RecentLatencies(clock);
    health.failure(A);
    served(call("SET", "moved", true, true));
    health = newHealth();
    CallDecider moved = call("GET", "moved", true, true, hedge);
    moved.next();
    moved.sending(B);
    assertThat(moved.hedgeDelay(latencies, B)).isEqualTo(-1);

    CallDecider other = call("GET", "stayed", true, true, hedge);
    other.next();
    other.sending(A);
    assertThat(other.hedgeDelay(latencies, A)).isEqualTo(5_000_000L);
  }

  @Test
  void aNonIdempotentWriteOnADivergedKeyStaysWithTheRackThatTookIt() {
    health.failure(A);
    served(call("SET", "n", true, true));
    health = newHealth();
    assertThat(served(call("INCR", "n", false, false))).isEqualTo(B);
    health.failure(B);
    CallDecider incr = call("INCR", "n", false, false);
    assertThat(incr.next()).isEqualTo(Answer.GIVE_UP);
    assertThat(incr.error()).hasMessageContaining(B + " is out of rotation");
  }

  @Test
  void pastTheLimitNoMoreKeysAreRemembered() {
    DivergedKeys one = new DivergedKeys(1);
    one.served("SET", "a", A, B);
    one.served("SET", "b", A, B);
    one.served("SET", "a", A, C);
    assertThat(one.size()).isEqualTo(1);
    assertThat(one.rackOf("a")).isEqualTo("rack3");
    assertThat(one.rackOf("b")).isNull();
    assertThat(one.preferring("b", OWNERS)).isSameAs(OWNERS);
    assertThat(one.preferring("a", OWNERS)).containsExactly(C, A, B);
  }

  @Test
  void whileNothingIsRememberedTheCandidatesAreHandedBackAsTheyAre() {
    assertThat(new DivergedKeys(10).preferring("k", OWNERS)).isSameAs(OWNERS);
  }
}
