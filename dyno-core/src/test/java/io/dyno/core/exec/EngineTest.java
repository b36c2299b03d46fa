package io.dyno.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.DeadlineExceededException;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.Host;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.exec.FakeFactory.Fault;
import io.dyno.core.exec.internal.Engine;
import io.dyno.core.metrics.DynoMetrics;
import io.dyno.core.routing.Topology;
import io.dyno.core.spi.FailureKind;
import io.dyno.core.time.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Deterministic engine tests: fake connections, a manual clock, a direct I/O executor. */
class EngineTest {
  static final Host A = TestTopology.host("rack1", 7001);
  static final Host B = TestTopology.host("rack2", 7002);
  static final Host C = TestTopology.host("rack3", 7003);

  final ManualScheduler clock = new ManualScheduler();
  final FakeFactory fakes = new FakeFactory();
  final DefaultRegistry registry = new DefaultRegistry();
  final List<Long> sleeps = new ArrayList<>();
  final AtomicReference<Topology> topology = new AtomicReference<>(
      TestTopology.builder("rack1").node(A, 0).node(B, 0).node(C, 0).build());
  Engine<FakeFactory.Conn> engine;

  Engine<FakeFactory.Conn> engine(DynoConfig.Builder config) {
    engine = (Engine<FakeFactory.Conn>) DynoEngine.builder(fakes)
        .config(config.build())
        .topology(topology::get)
        .registry(registry)
        .scheduler(clock)
        .ioExecutor(Runnable::run)
        .random(() -> 0.5)
        .sleeper(nanos -> {
          sleeps.add(nanos);
          clock.advance(Duration.ofNanos(nanos));
        })
        .registerMBean(false)
        .build();
    return engine;
  }

  static DynoConfig.Builder config() {
    return DynoConfig.builder().applicationName("test").retryPolicy(RetryPolicy.retryNTimes(2));
  }

  String get(CallOptions options) {
    return engine.execute("GET", "k", true, options, c -> c.call("GET"));
  }

  String incr(CallOptions options) {
    return engine.execute("INCR", "k", false, options, c -> c.call("INCR"));
  }

  String get() {
    return get(CallOptions.defaults());
  }

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
    }
  }

  @Test
  void successRunsOnTheLocalRackOwnerAndRecordsTheCall() {
    engine(config());
    assertThat(get()).isEqualTo("GET@7001");
    assertThat(registry.timer(registry.createId(DynoMetrics.OP_LATENCY).withTag("app", "test")
        .withTag("command", "GET").withTag("outcome", "success").withTag("rack", "rack1")).count()).isEqualTo(1);
    assertThat(engine.poolOf(A).active()).isZero();
  }

  @Test
  void connectionFailureDiscardsTheConnectionLowersHealthAndFailsOverToAnotherRack() {
    engine(config());
    fakes.node(A).script(Fault.IO);
    assertThat(get()).isEqualTo("GET@7002");
    assertThat(fakes.opened.stream().filter(c -> c.host().equals(A)).findFirst().orElseThrow().closed).isTrue();
    assertThat(engine.health().score(A)).isEqualTo(1.0);
    assertThat(counter(DynoMetrics.OP_FAILOVERS, "command", "GET", "rack", "rack2")).isEqualTo(1);
    assertThat(counter(DynoMetrics.OP_RETRIES, "command", "GET")).isEqualTo(1);
  }

  @Test
  void timeoutIsHandledLikeAConnectionFailure() {
    engine(config());
    fakes.node(A).script(Fault.TIMEOUT);
    assertThat(get()).isEqualTo("GET@7002");
    assertThat(engine.poolOf(A).size()).isZero();
    assertThat(engine.health().score(A)).isEqualTo(1.0);
  }

  @Test
  void replicaErrorKeepsTheConnectionAndTheNodeHealthyAndTriesAnotherRack() {
    engine(config());
    fakes.node(A).script(Fault.REPLICA);
    assertThat(get()).isEqualTo("GET@7002");
    assertThat(engine.poolOf(A).size()).isEqualTo(1);
    assertThat(fakes.opened.stream().filter(c -> c.host().equals(A)).allMatch(c -> !c.closed)).isTrue();
    assertThat(engine.health().score(A)).isZero();
  }

  @Test
  void dataErrorReachesTheCallerUnchangedWithConnectionKeptAndNodeHealthy() {
    engine(config());
    fakes.node(A).script(Fault.DATA);
    assertThatThrownBy(this::get).isInstanceOf(FakeFactory.DataError.class).hasMessageStartingWith("WRONGTYPE");
    assertThat(fakes.node(B).calls).isEmpty();
    assertThat(engine.poolOf(A).size()).isEqualTo(1);
    assertThat(engine.health().score(A)).isZero();
    assertThat(get()).isEqualTo("GET@7001");
  }

  @Test
  void runOnceDoesNotRerunACommandThatWasSent() {
    engine(config().retryPolicy(RetryPolicy.runOnce()));
    fakes.node(A).script(Fault.IO);
    assertThatThrownBy(this::get).isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining("GET failed after 1 run(s)").hasMessageContaining("127.0.0.1:7001");
    assertThat(fakes.node(B).calls).isEmpty();
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
    assertThat(sleeps).isEmpty();
    fakes.node(A).script(Fault.REPLICA, Fault.REPLICA, Fault.REPLICA);
    assertThatThrownBy(this::get).isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining("after 3 run(s)")
        .satisfies(e -> assertThat(((DynoConnectionException) e).kind()).isEqualTo(FailureKind.REPLICA));
  }

  @Test
  void exponentialBackoffWaitsDoublingJitteredDelaysBeforeRerunningOnTheSameNode() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config().retryPolicy(RetryPolicy.exponentialBackoff(4, Duration.ofMillis(10), Duration.ofMillis(25))));
    fakes.node(A).script(Fault.REPLICA, Fault.REPLICA, Fault.REPLICA);
    assertThat(get()).isEqualTo("GET@7001");
    // random = 0.5 of min(max, base * 2^(n-1)): 5 ms, 10 ms, then capped at 25 ms → 12.5 ms
    assertThat(sleeps).containsExactly(5_000_000L, 10_000_000L, 12_500_000L);
  }

  @Test
  void failingOverToAFreshReplicaDoesNotWait() {
    engine(config().retryPolicy(RetryPolicy.exponentialBackoff(3, Duration.ofMillis(10), Duration.ofMillis(100))));
    fakes.node(A).script(Fault.IO);
    fakes.node(B).script(Fault.IO);
    assertThat(get()).isEqualTo("GET@7003");
    assertThat(sleeps).isEmpty();
  }

  @Test
  void nonIdempotentCommandsAreNotRetriedAfterBeingSentUnlessAllowed() {
    engine(config());
    fakes.node(A).script(Fault.TIMEOUT);
    assertThatThrownBy(() -> engine.execute("INCR", "k", false, CallOptions.defaults(), c -> c.call("INCR")))
        .isInstanceOf(DynoConnectionException.class).hasMessageContaining("not idempotent");
    assertThat(fakes.node(B).calls).isEmpty();

    fakes.node(A).script(Fault.TIMEOUT);
    assertThat(incr(CallOptions.defaults().withRetryNonIdempotent(true))).isEqualTo("INCR@7002");
  }

  @Test
  void nonIdempotentCommandsFailOverWhenTheyNeverReachedTheServer() {
    engine(config());
    engine.poolOf(A).drain();
    assertThat(incr(CallOptions.defaults())).isEqualTo("INCR@7002");
  }

  @Test
  void aCommandRefusedAtCapacityWasNeverSentSoEvenANonIdempotentOneFailsOverAndNothingPaysForIt() {
    engine(config().retryPolicy(RetryPolicy.runOnce()));
    fakes.node(A).script(Fault.AT_CAPACITY);
    assertThat(incr(CallOptions.defaults())).isEqualTo("INCR@7002");
    assertThat(fakes.node(A).calls).containsExactly("INCR");
    // Like a pool timeout: the connection goes back, the node stays healthy, no re-run is counted.
    assertThat(engine.poolOf(A).size()).isEqualTo(1);
    assertThat(fakes.opened.stream().filter(c -> c.host().equals(A)).noneMatch(c -> c.closed)).isTrue();
    assertThat(engine.health().score(A)).isZero();
    assertThat(counter(DynoMetrics.OP_RETRIES, "command", "INCR")).isZero();
    assertThat(counter(DynoMetrics.OP_FAILOVERS, "command", "INCR", "rack", "rack2")).isEqualTo(1);
  }

  @Test
  void aCommandRefusedAtCapacityEverywhereFailsNamingTheNodeAndTheLimitAsNotSent() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config().retryPolicy(RetryPolicy.runOnce()));
    fakes.node(A).always = Fault.AT_CAPACITY;
    assertThatThrownBy(() -> incr(CallOptions.defaults())).isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining("INCR failed after 0 run(s)").hasMessageContaining("before the command was sent")
        .hasMessageContaining("127.0.0.1:7001").hasMessageContaining("the limit (maxInFlight) is 4")
        .hasMessageNotContaining("not idempotent");
    assertThat(engine.health().score(A)).isZero();
  }

  @Test
  void aCommandWhoseConnectionClosedBeforeSendingItGoesToTheSameNodeAgainWhenNoOtherIsLeft() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config().retryPolicy(RetryPolicy.runOnce()));
    fakes.node(A).script(Fault.CLOSED_BEFORE_SENT);
    assertThat(incr(CallOptions.defaults())).as("a non-idempotent command: nothing of it was sent")
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
    assertThatThrownBy(() -> incr(CallOptions.defaults())).isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining("before the command was sent");
    assertThat(fakes.node(A).calls).containsExactly("INCR");
  }

  @Test
  void deadlineStopsBackoffThatWouldOverrunIt() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config().retryPolicy(RetryPolicy.exponentialBackoff(5, Duration.ofMillis(40), Duration.ofMillis(400))));
    fakes.node(A).always = Fault.REPLICA;
    CallOptions opts = CallOptions.defaults().withDeadline(Duration.ofMillis(50));
    assertThatThrownBy(() -> get(opts)).isInstanceOf(DeadlineExceededException.class)
        .hasMessageContaining("deadline of 50 ms")
        .hasCauseInstanceOf(DynoConnectionException.class);
    // waits: 20 ms, then 40 ms would pass the 50 ms deadline → not started
    assertThat(sleeps).containsExactly(20_000_000L);
    assertThat(fakes.node(A).calls).hasSize(2);
  }

  @Test
  void deadlinePassedDuringARunStartsNoFurtherAttempt() {
    engine(config());
    fakes.node(A).always = Fault.TIMEOUT;
    CallOptions opts = CallOptions.defaults().withDeadline(Duration.ofMillis(100));
    assertThatThrownBy(() -> engine.execute("GET", "k", true, opts, c -> {
      clock.advance(Duration.ofMillis(150)); // the run itself took longer than the deadline
      return c.call("GET");
    })).isInstanceOf(DeadlineExceededException.class);
    assertThat(fakes.node(B).calls).isEmpty();
  }

  /** A hung node: the read blocks for the connection's whole read timeout, then times out. */
  String getWithHung(Host hung, CallOptions options) {
    return engine.execute("GET", "k", true, options, c -> {
      if (c.host().equals(hung)) {
        clock.advance(c.readTimeout());
        throw new java.net.SocketTimeoutException("read timed out after " + c.readTimeout().toMillis() + " ms");
      }
      return c.call("GET");
    });
  }

  static FakeFactory.Conn only(List<FakeFactory.Conn> conns, Host h) {
    List<FakeFactory.Conn> of = conns.stream().filter(c -> c.host().equals(h)).toList();
    assertThat(of).hasSize(1);
    return of.get(0);
  }

  @Test
  void aRunOnAHungNodeIsCappedAtHalfTheTimeLeftSoTheFailoverGetsTheOtherHalf() {
    engine(config().socketTimeout(Duration.ofSeconds(5)));
    CallOptions opts = CallOptions.defaults().withDeadline(Duration.ofMillis(800));
    long start = clock.nanoTime();
    assertThat(getWithHung(A, opts)).isEqualTo("GET@7002");
    assertThat(Duration.ofNanos(clock.nanoTime() - start)).isEqualTo(Duration.ofMillis(400));
    FakeFactory.Conn a = only(fakes.opened, A);
    assertThat(a.readTimeouts).containsExactly(Duration.ofMillis(400));
    // the timed-out connection is gone for good: closed, out of the pool, never handed out again
    assertThat(a.closed).isTrue();
    assertThat(engine.poolOf(A).size()).isZero();
    // rack2 had 400 ms left and rack3 still untried: capped at 200 ms, then its socket timeout restored
    assertThat(only(fakes.opened, B).readTimeouts).containsExactly(Duration.ofMillis(200), Duration.ofSeconds(5));
    assertThat(get()).isEqualTo("GET@7001"); // on a new connection (the old one would throw "used after close")
    assertThat(fakes.node(A).opens).isEqualTo(2);
  }

  @Test
  void withNowhereElseToGoARunGetsAllTheTimeLeftAndTheCallerGetsDeadlineExceededExactlyAtTheDeadline() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config().socketTimeout(Duration.ofSeconds(5)));
    CallOptions opts = CallOptions.defaults().withDeadline(Duration.ofMillis(800));
    long start = clock.nanoTime();
    assertThatThrownBy(() -> getWithHung(A, opts)).isInstanceOf(DeadlineExceededException.class)
        .hasMessageContaining("deadline of 800 ms").hasCauseInstanceOf(DynoConnectionException.class);
    assertThat(Duration.ofNanos(clock.nanoTime() - start)).isEqualTo(Duration.ofMillis(800));
    assertThat(only(fakes.opened, A).readTimeouts).containsExactly(Duration.ofMillis(800));
    assertThat(only(fakes.opened, A).closed).isTrue();
  }

  @Test
  void aNonIdempotentCommandGetsAllTheTimeLeftBecauseItWouldNotMoveOnAfterATimeout() {
    engine(config().socketTimeout(Duration.ofSeconds(5)));
    CallOptions opts = CallOptions.defaults().withDeadline(Duration.ofMillis(800));
    assertThat(incr(opts)).isEqualTo("INCR@7001");
    assertThat(only(fakes.opened, A).readTimeouts).containsExactly(Duration.ofMillis(800), Duration.ofSeconds(5));
  }

  @Test
  void theSocketIsNotTouchedWithoutADeadlineOrWithMoreTimeLeftThanTheSocketTimeout() {
    engine(config().socketTimeout(Duration.ofSeconds(2)));
    assertThat(get()).isEqualTo("GET@7001");
    assertThat(get(CallOptions.defaults().withDeadline(Duration.ofSeconds(10)))).isEqualTo("GET@7001");
    assertThat(only(fakes.opened, A).readTimeouts).isEmpty();
    // a data error keeps the connection: its socket timeout is restored before it goes back
    fakes.node(A).script(Fault.DATA);
    assertThatThrownBy(() -> get(CallOptions.defaults().withDeadline(Duration.ofMillis(300))))
        .isInstanceOf(FakeFactory.DataError.class);
    assertThat(only(fakes.opened, A).readTimeouts).containsExactly(Duration.ofMillis(150), Duration.ofSeconds(2));
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
  void aNodeThatKeepsFailingIsSkippedThenProbedAndTakesTrafficAgainByItself() {
    engine(config().healthErrorThreshold(3).healthCoolDown(Duration.ofSeconds(5)).healthHalfLife(Duration.ofSeconds(10)));
    fakes.node(A).script(Fault.IO, Fault.IO, Fault.IO);
    for (int i = 0; i < 3; i++) {
      assertThat(get()).isEqualTo("GET@7002");
    }
    assertThat(engine.health().isUp(A)).isFalse();
    int callsOnA = fakes.node(A).calls.size();
    assertThat(get()).isEqualTo("GET@7002"); // skipped, not even tried
    assertThat(fakes.node(A).calls).hasSize(callsOnA);

    fakes.node(A).refuseConnect = true;
    clock.advance(Duration.ofSeconds(5)); // first probe fails: next one in 10 s
    assertThat(engine.health().isUp(A)).isFalse();
    fakes.node(A).refuseConnect = false;
    clock.advance(Duration.ofSeconds(9));
    assertThat(engine.health().isUp(A)).isFalse();
    clock.advance(Duration.ofSeconds(1));
    assertThat(engine.health().isUp(A)).isTrue();
    assertThat(get()).isEqualTo("GET@7001");
    assertThat(counter(DynoMetrics.NODE_HEALTH, "node", A.id(), "state", "down")).isEqualTo(1);
    assertThat(counter(DynoMetrics.NODE_HEALTH, "node", A.id(), "state", "up")).isEqualTo(1);
  }

  @Test
  void errorsSpreadOutInTimeDecayAndDoNotTakeANodeDown() {
    engine(config().healthErrorThreshold(3).healthHalfLife(Duration.ofSeconds(10)));
    for (int i = 0; i < 10; i++) {
      fakes.node(A).script(Fault.IO);
      assertThat(get()).isEqualTo("GET@7002");
      clock.advance(Duration.ofSeconds(20)); // the score halves twice between errors
    }
    assertThat(engine.health().isUp(A)).isTrue();
    assertThat(engine.health().score(A)).isLessThan(1.0);
  }

  @Test
  void aWholeRackDownSendsTrafficToTheOtherRacks() {
    Host a2 = TestTopology.host("rack1", 7011);
    Host b2 = TestTopology.host("rack2", 7012);
    topology.set(TestTopology.builder("rack1").node(A, 100).node(a2, 200).node(B, 100).node(b2, 200).version(3).build());
    engine(config().healthErrorThreshold(1).failOnStartupIfNoHosts(false));
    fakes.node(A).always = Fault.IO;
    fakes.node(a2).always = Fault.IO;
    fakes.node(A).refuseConnect = true;
    fakes.node(a2).refuseConnect = true;
    for (int i = 0; i < 50; i++) {
      String key = "key" + i;
      String r = engine.execute("GET", key, true, CallOptions.defaults(), c -> c.call("GET"));
      assertThat(r).as(key).matches("GET@70(02|12)");
    }
  }

  @Test
  void consistencyIsSentOnlyWhenTheConnectionsLevelDiffers() {
    engine(config());
    get();
    FakeFactory.Conn conn = fakes.opened.stream().filter(c -> c.host().equals(A)).findFirst().orElseThrow();
    assertThat(conn.consistencySent).isEmpty(); // server default: nothing sent

    CallOptions quorum = CallOptions.defaults().withConsistency(ConsistencyLevel.DC_QUORUM);
    get(quorum);
    get(quorum);
    assertThat(conn.consistencySent).containsExactly(ConsistencyLevel.DC_QUORUM);
    get(); // back to the default: Dynomite's DC_ONE, once
    get();
    assertThat(conn.consistencySent).containsExactly(ConsistencyLevel.DC_QUORUM, ConsistencyLevel.DC_ONE);
    assertThat(counter(DynoMetrics.CONSISTENCY_SET, "level", "DC_QUORUM")).isEqualTo(1);
  }

  @Test
  void clientDefaultConsistencyIsSetOncePerConnection() {
    engine(config().defaultConsistency(ConsistencyLevel.DC_SAFE_QUORUM));
    for (int i = 0; i < 5; i++) {
      get();
    }
    FakeFactory.Conn conn = fakes.opened.stream().filter(c -> c.host().equals(A)).findFirst().orElseThrow();
    assertThat(conn.consistencySent).containsExactly(ConsistencyLevel.DC_SAFE_QUORUM);
  }

  @Test
  void datastoreModeConnectsToTheRedisPortAndRejectsConsistency() {
    Host d = TestTopology.host("rack1", 7101, 7201);
    topology.set(TestTopology.builder("rack1").node(d, 0).version(4).build());
    engine(config().datastoreMode(true));
    assertThat(get()).isEqualTo("GET@7201");
    assertThatThrownBy(() -> get(CallOptions.defaults().withConsistency(ConsistencyLevel.DC_QUORUM)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("datastore mode").hasMessageContaining("DC_QUORUM");
    assertThatThrownBy(() -> DynoConfig.builder().datastoreMode(true).defaultConsistency(ConsistencyLevel.DC_ONE).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("defaultConsistency");
  }

  @Test
  void aNodeLeavingTheTopologyIsDrainedInFlightCallsFinishThenItsConnectionsClose() {
    engine(config());
    Operation<FakeFactory.Conn, String> op = c -> {
      topology.set(TestTopology.builder("rack1").node(B, 0).node(C, 0).version(5).build());
      engine.topology(); // the engine notices the new version: A's pool drains while we are in flight
      assertThat(c.closed).isFalse();
      return c.call("GET");
    };
    assertThat(engine.execute("GET", "k", true, CallOptions.defaults(), op)).isEqualTo("GET@7001");
    assertThat(fakes.opened.stream().filter(c -> c.host().equals(A)).allMatch(c -> c.closed)).isTrue();
    assertThat(engine.poolOf(A)).isNull();
    assertThat(get()).isEqualTo("GET@7002");
  }

  @Test
  void keepAlivePingsReallyRunOnIdleConnectionsAndABadOneIsReplaced() {
    engine(config().keepAliveInterval(Duration.ofSeconds(30)).minConnsPerHost(1));
    FakeFactory.Conn conn = fakes.opened.stream().filter(c -> c.host().equals(A)).findFirst().orElseThrow();
    clock.advance(Duration.ofSeconds(31));
    assertThat(conn.pings).isEqualTo(1);
    fakes.node(A).failPing = true;
    clock.advance(Duration.ofSeconds(31));
    assertThat(conn.closed).isTrue();
    assertThat(engine.poolOf(A).size()).isEqualTo(1); // refilled to the minimum
    assertThat(fakes.node(A).opens).isEqualTo(2);
  }

  @Test
  void idleConnectionsAboveTheMinimumAreClosed() {
    engine(config().minConnsPerHost(1).idleTimeout(Duration.ofSeconds(60)));
    // hold three connections at once so the pool grows to 3
    Operation<FakeFactory.Conn, String> inner = c3 -> c3.call("GET");
    Operation<FakeFactory.Conn, String> middle = c2 -> engine.execute("GET", "k", true, CallOptions.defaults(), inner);
    Operation<FakeFactory.Conn, String> outer = c1 -> engine.execute("GET", "k", true, CallOptions.defaults(), middle);
    engine.execute("GET", "k", true, CallOptions.defaults(), outer);
    assertThat(engine.poolOf(A).size()).isEqualTo(3);
    clock.advance(Duration.ofSeconds(61));
    assertThat(engine.poolOf(A).size()).isEqualTo(1);
    assertThat(counter(DynoMetrics.CONNECTIONS_CLOSED, "node", A.id(), "reason", "idle")).isEqualTo(2);
  }

  @Test
  @Timeout(30) // an hour of real time would fail here: only the engine's clock may end the wait
  void startupFailsWhenNoNodeAnswersWithinTheStartupTimeoutOnTheEnginesClock() {
    fakes.node(A).refuseConnect = true;
    fakes.node(B).refuseConnect = true;
    fakes.node(C).refuseConnect = true;
    CompletableFuture<Engine<FakeFactory.Conn>> starting =
        CompletableFuture.supplyAsync(() -> engine(config().startupTimeout(Duration.ofHours(1))));
    // Start-up reads the clock when it begins to wait, at a moment this thread cannot see: advance until it gives up.
    while (!starting.isDone()) {
      clock.advance(Duration.ofMinutes(1));
    }
    assertThatThrownBy(starting::join).cause().isInstanceOf(NoAvailableHostsException.class)
        .hasMessageContaining("no Dynomite node answered within 3600000 ms").hasMessageContaining("127.0.0.1:7001");
    engine = null;
  }

  @Test
  void closeIsIdempotentAndLaterCallsAreRefused() {
    engine(config());
    get();
    engine.close();
    engine.close();
    assertThat(fakes.openConnections()).isZero();
    assertThatThrownBy(this::get).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
  }

  double counter(String name, String... tags) {
    return registry.counter(registry.createId(name).withTag("app", "test").withTags(tags)).count();
  }

  @Test
  void withoutCrossRackFallbackARerunAfterASentFailureStaysInTheLocalRack() {
    engine(config().retryPolicy(RetryPolicy.retryNTimes(2).withCrossRackFallback(false)));
    fakes.node(A).script(Fault.REPLICA, Fault.IO);
    assertThat(get()).isEqualTo("GET@7001");
    assertThat(fakes.node(A).calls).hasSize(3);
    assertThat(fakes.node(B).calls).isEmpty();
    assertThat(fakes.node(C).calls).isEmpty();
    assertThat(counter(DynoMetrics.OP_FAILOVERS, "command", "GET", "rack", "rack2")).isZero();
  }

  @Test
  void withoutCrossRackFallbackTheCallFailsInTheLocalRackButAnUnsentFailureStillMovesOn() {
    engine(config().retryPolicy(RetryPolicy.retryNTimes(2).withCrossRackFallback(false)));
    fakes.node(A).always = Fault.IO;
    assertThatThrownBy(this::get).isInstanceOf(DynoConnectionException.class).hasMessageContaining("3 run(s)");
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
}
