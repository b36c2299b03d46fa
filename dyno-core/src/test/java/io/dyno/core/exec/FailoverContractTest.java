package io.dyno.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.DynoConnectionException;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.exec.FakeFactory.Fault;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.metrics.DynoMetrics;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The call contract, part 1: what a failure means and where the call goes next — on every path a
 * command can take ({@link CallContract.Mode}). Transport differences are spelled out: on the
 * multiplexed transport a connection (a lease) goes back to its pool before the reply arrives, so a
 * failed reply cannot discard it.
 */
@ParameterizedClass
@EnumSource(CallContract.Mode.class)
class FailoverContractTest extends CallContract {

  FailoverContractTest(Mode mode) {
    super(mode);
  }

  @Test
  void successRunsOnTheLocalRackOwnerAndRecordsTheCall() {
    engine(config());
    assertThat(get()).isEqualTo("GET@7001");
    assertThat(opCount("GET", "success", "rack1")).isEqualTo(1);
    assertThat(engine.poolOf(A).active()).isZero();
  }

  @Test
  void connectionFailureLowersHealthAndFailsOverToAnotherRack() {
    engine(config());
    fakes.node(A).script(Fault.IO);
    assertThat(get()).isEqualTo("GET@7002");
    if (!mode.multiplexed) {
      assertThat(only(fakes.opened, A).closed)
          .as("the broken connection is discarded")
          .isTrue();
    }
    assertThat(engine.health().score(A)).isEqualTo(1.0);
    assertThat(counter(DynoMetrics.OP_FAILOVERS, "command", "GET", "rack", "rack2"))
        .isEqualTo(1);
    assertThat(counter(DynoMetrics.OP_RETRIES, "command", "GET")).isEqualTo(1);
  }

  @Test
  void aTimeoutFailsOverAndAfterALongWaitTakesTheSilentNodeOutOfRotation() {
    engine(config());
    fakes.node(A).script(Fault.TIMEOUT);
    assertThat(get()).isEqualTo("GET@7002");
    if (!mode.multiplexed) {
      assertThat(engine.poolOf(A).size()).isZero();
    }
    // no deadline: it waited the whole socket timeout, far more than silentNodeAfter, and B
    // answered the failover (after A's timeout: the verdict waited for its grace)
    clock.advance(HealthTracker.SILENCE_GRACE);
    assertThat(engine.health().isUp(A)).isFalse();
    assertThat(engine.health().score(A))
        .as("not a point of error score: out at once")
        .isZero();
  }

  @Test
  void replicaErrorKeepsTheConnectionAndTheNodeHealthyAndTriesAnotherRack() {
    engine(config());
    fakes.node(A).script(Fault.REPLICA);
    assertThat(get()).isEqualTo("GET@7002");
    assertThat(engine.poolOf(A).size()).isEqualTo(1);
    assertThat(fakes.opened.stream().filter(c -> c.host().equals(A)).noneMatch(c -> c.closed))
        .isTrue();
    assertThat(engine.health().score(A)).isZero();
  }

  @Test
  void dataErrorReachesTheCallerUnchangedWithConnectionKeptAndNodeHealthy() {
    engine(config());
    fakes.node(A).script(Fault.DATA);
    assertThatThrownBy(this::get)
        .isInstanceOf(FakeFactory.DataError.class)
        .hasMessageStartingWith("WRONGTYPE");
    assertThat(fakes.node(B).calls).isEmpty();
    assertThat(engine.poolOf(A).size()).isEqualTo(1);
    assertThat(engine.health().score(A)).isZero();
    assertThat(opCount("GET", "data_error", "rack1")).isEqualTo(1);
    assertThat(get()).isEqualTo("GET@7001");
  }

  @Test
  void runOnceDoesNotRerunACommandThatWasSent() {
    engine(config().retryPolicy(RetryPolicy.runOnce()));
    fakes.node(A).script(Fault.IO);
    assertThatThrownBy(this::get)
        .isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining("GET failed after 1 run(s)")
        .hasMessageContaining("127.0.0.1:7001");
    assertThat(fakes.node(B).calls).isEmpty();
    assertThat(opCount("GET", "connection_error", "rack1")).isEqualTo(1);
  }

  @Test
  void runOnceStillFailsOverWhenTheCommandWasNeverSent() {
    engine(config().retryPolicy(RetryPolicy.runOnce()));
    fakes.node(A).refuseConnect = true;
    engine.poolOf(A).drain(); // the pool of A cannot lend a connection: the borrow fails
    assertThat(get()).isEqualTo("GET@7002");
  }

  @Test
  void retryNTimesRunsNPlusOneTimesOnASingleReplicaWithoutWaiting() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config().retryPolicy(RetryPolicy.retryNTimes(2)));
    fakes.node(A).script(Fault.REPLICA, Fault.REPLICA);
    assertThat(get()).isEqualTo("GET@7001");
    assertThat(fakes.node(A).calls).hasSize(3);
    assertThat(waits).isEmpty();
    fakes.node(A).script(Fault.REPLICA, Fault.REPLICA, Fault.REPLICA);
    assertThatThrownBy(this::get)
        .isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining("after 3 run(s)")
        .satisfies(
            e -> assertThat(((DynoConnectionException) e).kind()).isEqualTo(FailureKind.REPLICA));
  }

  @Test
  void exponentialBackoffWaitsDoublingJitteredDelaysBeforeRerunningOnTheSameNode() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config()
        .retryPolicy(
            RetryPolicy.exponentialBackoff(4, Duration.ofMillis(10), Duration.ofMillis(25))));
    fakes.node(A).script(Fault.REPLICA, Fault.REPLICA, Fault.REPLICA);
    assertThat(get()).isEqualTo("GET@7001");
    // random = 0.5 of min(max, base * 2^(n-1)): 5 ms, 10 ms, then capped at 25 ms → 12.5 ms (a
    // sleep, or a timer)
    assertThat(waits).containsExactly(5_000_000L, 10_000_000L, 12_500_000L);
  }

  @Test
  void failingOverToAFreshReplicaDoesNotWait() {
    engine(config()
        .retryPolicy(
            RetryPolicy.exponentialBackoff(3, Duration.ofMillis(10), Duration.ofMillis(100))));
    fakes.node(A).script(Fault.IO);
    fakes.node(B).script(Fault.IO);
    assertThat(get()).isEqualTo("GET@7003");
    assertThat(waits).isEmpty();
  }

  @Test
  void nonIdempotentCommandsAreNotRetriedAfterBeingSentUnlessAllowed() {
    engine(config());
    fakes.node(A).script(Fault.TIMEOUT);
    assertThatThrownBy(() -> incr(CallOptions.defaults()))
        .isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining("not idempotent");
    assertThat(fakes.node(B).calls).isEmpty();

    engine.close();
    engine(config().failoverNonIdempotentWrites(true));
    fakes.node(A).script(Fault.TIMEOUT);
    assertThat(incr(CallOptions.defaults().withRetryNonIdempotent(true))).isEqualTo("INCR@7002");
  }

  @Test
  void aNonIdempotentCommandFailsOverWhenItsOwnerIsLeavingTheTopology() {
    engine(config());
    engine.poolOf(A).drain();
    assertThat(incr(CallOptions.defaults())).isEqualTo("INCR@7002");
  }

  @Test
  void aCommandRefusedAtCapacityWasNeverSentSoItFailsOverAndNothingPaysForIt() {
    engine(config().retryPolicy(RetryPolicy.runOnce()));
    fakes.node(A).script(Fault.AT_CAPACITY);
    assertThat(get()).isEqualTo("GET@7002");
    assertThat(fakes.node(A).calls).containsExactly("GET");
    // Like a pool timeout: the connection goes back, the node stays healthy, no re-run is counted.
    assertThat(engine.poolOf(A).size()).isEqualTo(1);
    assertThat(fakes.opened.stream().filter(c -> c.host().equals(A)).noneMatch(c -> c.closed))
        .isTrue();
    assertThat(engine.health().score(A)).isZero();
    assertThat(counter(DynoMetrics.OP_RETRIES, "command", "GET")).isZero();
    assertThat(counter(DynoMetrics.OP_FAILOVERS, "command", "GET", "rack", "rack2"))
        .isEqualTo(1);
  }

  @Test
  void aNonIdempotentCommandRefusedAtCapacityStaysInItsRack() {
    // A node that stopped answering fills its in-flight limit before it is found out: an INCR
    // moved to rack2 then would never reach rack1.
    engine(config().retryPolicy(RetryPolicy.runOnce()));
    fakes.node(A).script(Fault.AT_CAPACITY);
    assertThatThrownBy(() -> incr(CallOptions.defaults()))
        .isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining("INCR on key \"k\" was not sent to another rack")
        .hasMessageContaining("could not take it")
        .hasMessageContaining("the limit (maxInFlight) is 4");
    assertThat(fakes.node(B).calls).isEmpty();
    assertThat(engine.health().score(A)).isZero();
  }

  @Test
  void aCommandRefusedAtCapacityEverywhereFailsNamingTheNodeAndTheLimitAsNotSent() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config().retryPolicy(RetryPolicy.runOnce()));
    fakes.node(A).always = Fault.AT_CAPACITY;
    assertThatThrownBy(() -> incr(CallOptions.defaults()))
        .isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining("INCR failed after 0 run(s)")
        .hasMessageContaining("before the command was sent")
        .hasMessageContaining("127.0.0.1:7001")
        .hasMessageContaining("the limit (maxInFlight) is 4")
        .hasMessageNotContaining("not idempotent");
    assertThat(engine.health().score(A)).isZero();
  }

  @Test
  void aCommandWhoseConnectionClosedBeforeSendingItGoesToTheSameNodeAgainWhenNoOtherIsLeft() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config().retryPolicy(RetryPolicy.runOnce()));
    fakes.node(A).script(Fault.CLOSED_BEFORE_SENT);
    assertThat(incr(CallOptions.defaults()))
        .as("a non-idempotent command: nothing of it was sent")
        .isEqualTo("INCR@7001");
    assertThat(fakes.node(A).calls).containsExactly("INCR", "INCR");
    assertThat(counter(DynoMetrics.OP_RETRIES, "command", "INCR")).isZero();
    assertThat(engine.health().score(A)).isZero();
  }

  @Test
  void aCommandRefusedAtCapacityIsNotSentToTheSameNodeAgain() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config().retryPolicy(RetryPolicy.runOnce()));
    fakes.node(A).script(Fault.AT_CAPACITY);
    assertThatThrownBy(() -> incr(CallOptions.defaults()))
        .isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining("before the command was sent");
    assertThat(fakes.node(A).calls).containsExactly("INCR");
  }

  @Test
  void maxFailoverCountLimitsHowManyOtherRacksAreTried() {
    engine(config().maxFailoverCount(1).retryPolicy(RetryPolicy.retryNTimes(5)));
    fakes.node(A).always = Fault.REPLICA;
    fakes.node(B).always = Fault.REPLICA;
    assertThatThrownBy(this::get).isInstanceOf(DynoConnectionException.class);
    assertThat(fakes.node(C).calls).isEmpty();
    assertThat(fakes.node(A).calls.size() + fakes.node(B).calls.size()).isEqualTo(6);
  }

  @Test
  void withoutCrossRackFallbackARerunAfterASentFailureStaysInTheLocalRack() {
    engine(config().retryPolicy(RetryPolicy.retryNTimes(2).withCrossRackFallback(false)));
    fakes.node(A).script(Fault.REPLICA, Fault.IO);
    assertThat(get()).isEqualTo("GET@7001");
    assertThat(fakes.node(A).calls).hasSize(3);
    assertThat(fakes.node(B).calls).isEmpty();
    assertThat(fakes.node(C).calls).isEmpty();
    assertThat(counter(DynoMetrics.OP_FAILOVERS, "command", "GET", "rack", "rack2"))
        .isZero();
  }

  @Test
  void withoutCrossRackFallbackTheCallFailsInTheLocalRackButAnUnsentFailureStillMovesOn() {
    engine(config().retryPolicy(RetryPolicy.retryNTimes(2).withCrossRackFallback(false)));
    fakes.node(A).always = Fault.IO;
    assertThatThrownBy(this::get)
        .isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining("3 run(s)");
    assertThat(fakes.node(B).calls).isEmpty();
    fakes.node(A).always = Fault.NONE;
    fakes.node(A).refuseConnect = true;
    engine.poolOf(A).drain();
    assertThat(get()).as("never sent on rack1: another rack may take it").isNotEqualTo("GET@7001");
  }

  @Test
  void withCrossRackFallbackTheSameFailureMovesToAnotherRack() {
    engine(config().retryPolicy(RetryPolicy.retryNTimes(2)));
    fakes.node(A).script(Fault.REPLICA, Fault.IO);
    assertThat(get()).isEqualTo("GET@7002");
    assertThat(fakes.node(A).calls).hasSize(1);
  }

  @Test
  void aWholeRackDownSendsTrafficToTheOtherRacks() {
    Host a2 = TestTopology.host("rack1", 7011);
    Host b2 = TestTopology.host("rack2", 7012);
    topology.set(TestTopology.builder("rack1")
        .node(A, 100)
        .node(a2, 200)
        .node(B, 100)
        .node(b2, 200)
        .version(3)
        .build());
    engine(config().healthErrorThreshold(1).failOnStartupIfNoHosts(false));
    fakes.node(A).always = Fault.IO;
    fakes.node(a2).always = Fault.IO;
    fakes.node(A).refuseConnect = true;
    fakes.node(a2).refuseConnect = true;
    for (int i = 0; i < 50; i++) {
      String key = "key" + i;
      assertThat(call("GET", key, true, CallOptions.defaults(), c -> c.call("GET")))
          .as(key)
          .matches("GET@70(02|12)");
    }
  }
}
