package io.dyno.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.DeadlineExceededException;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.exec.FakeFactory.Fault;
import io.dyno.core.exec.internal.Engine;
import io.dyno.core.metrics.DynoMetrics;
import io.dyno.core.routing.Topology;
import io.dyno.core.time.ManualScheduler;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The asynchronous request path ({@code executeAsync}): the same rules as the blocking one, the
 * connection back in its pool while the reply is on its way, waits that are timers, hedged reads.
 * Fake connections whose replies the test completes, a manual clock, an I/O executor the test runs.
 */
class AsyncEngineTest {
  static final Host A = TestTopology.host("rack1", 7001);
  static final Host B = TestTopology.host("rack2", 7002);
  static final Host C = TestTopology.host("rack3", 7003);

  final ManualScheduler clock = new ManualScheduler();
  final FakeFactory fakes = new FakeFactory();
  final DefaultRegistry registry = new DefaultRegistry();
  final Queue<Runnable> io = new ArrayDeque<>();
  /** Start-up (pool filling) runs inline; after it, the test runs the I/O executor's tasks itself. */
  volatile boolean queueIo;
  final AtomicReference<Topology> topology = new AtomicReference<>(
      TestTopology.builder("rack1").node(A, 0).node(B, 0).node(C, 0).build());
  Engine<FakeFactory.Conn> engine;

  void engine(DynoConfig.Builder config) {
    engine = (Engine<FakeFactory.Conn>) DynoEngine.builder(fakes)
        .config(config.build())
        .topology(topology::get)
        .registry(registry)
        .scheduler(clock)
        .ioExecutor(r -> {
          if (queueIo) {
            io.add(r);
          } else {
            r.run();
          }
        })
        .random(() -> 0.5)
        .sleeper(nanos -> {
          throw new AssertionError("an asynchronous call must never sleep");
        })
        .registerMBean(false)
        .build();
    queueIo = true;
  }

  static DynoConfig.Builder config() {
    return DynoConfig.builder().applicationName("test").retryPolicy(RetryPolicy.retryNTimes(2));
  }

  CompletableFuture<String> get(CallOptions options) {
    return engine.executeAsync("GET", engine.route("k"), true, true, options, c -> c.submit("GET"));
  }

  CompletableFuture<String> get() {
    return get(CallOptions.defaults());
  }

  /** Runs what the calls handed to the I/O executor, and what that hands on, until nothing is left. */
  void runIo() {
    for (Runnable r; (r = io.poll()) != null; ) {
      r.run();
    }
  }

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
    }
  }

  @Test
  void aReplyOnItsWayHoldsNoPooledConnectionAndCompletesTheCallWhenItArrives() {
    engine(config());
    fakes.node(A).hold = true;
    CompletableFuture<String> f = get();
    assertThat(f).isNotDone();
    assertThat(engine.poolOf(A).active()).isZero(); // back in the pool while the reply is out
    fakes.node(A).held.get(0).complete("GET@7001");
    assertThat(f).isCompletedWithValue("GET@7001");
    assertThat(registry.timer(registry.createId(DynoMetrics.OP_LATENCY).withTag("app", "test")
        .withTag("command", "GET").withTag("outcome", "success").withTag("rack", "rack1")).count()).isEqualTo(1);
  }

  @Test
  void aBlockingTransportsFailureIsSettledWithItsConnectionHeldSoTheBrokenConnectionIsDiscarded() {
    engine(config());
    fakes.node(A).script(Fault.IO);
    CompletableFuture<String> f = get();
    runIo();
    assertThat(f).isCompletedWithValue("GET@7002");
    assertThat(fakes.opened.stream().filter(c -> c.host().equals(A)).findFirst().orElseThrow().closed).isTrue();
    assertThat(engine.health().score(A)).isEqualTo(1.0);
  }

  @Test
  void aFailedReplyFailsOverOnTheIoExecutorNeverOnTheThreadThatDeliveredIt() {
    engine(config());
    fakes.node(A).hold = true;
    CompletableFuture<String> f = get();
    fakes.node(A).held.get(0).completeExceptionally(new IOException("connection reset by 127.0.0.1:7001"));
    assertThat(f).isNotDone();
    assertThat(fakes.node(B).calls).isEmpty(); // not on the delivering thread
    runIo();
    assertThat(f).isCompletedWithValue("GET@7002");
    assertThat(engine.health().score(A)).isEqualTo(1.0);
    assertThat(counter(DynoMetrics.OP_RETRIES, "command", "GET")).isEqualTo(1);
  }

  @Test
  void aNonIdempotentCommandWhoseReplyFailedIsNotRerun() {
    engine(config());
    fakes.node(A).hold = true;
    CompletableFuture<String> f = engine.executeAsync("INCR", engine.route("k"), false, false,
        CallOptions.defaults(), c -> c.submit("INCR"));
    fakes.node(A).held.get(0).completeExceptionally(new SocketTimeoutException("read timed out"));
    runIo();
    assertThat(f).isCompletedExceptionally();
    assertThat(failure(f)).isInstanceOf(DynoConnectionException.class).hasMessageContaining("not idempotent");
    assertThat(fakes.node(B).calls).isEmpty();
  }

  @Test
  void aDataErrorCompletesTheCallAsItIsAndLeavesTheNodeHealthy() {
    engine(config());
    fakes.node(A).script(Fault.DATA);
    CompletableFuture<String> f = get();
    assertThat(failure(f)).isInstanceOf(FakeFactory.DataError.class).hasMessageStartingWith("WRONGTYPE");
    assertThat(fakes.node(B).calls).isEmpty();
    assertThat(engine.health().score(A)).isZero();
  }

  @Test
  void aRefusalAtCapacityMovesEvenANonIdempotentCommandToAnotherReplica() {
    engine(config());
    fakes.node(A).script(Fault.AT_CAPACITY);
    CompletableFuture<String> f = engine.executeAsync("INCR", engine.route("k"), false, false,
        CallOptions.defaults(), c -> c.submit("INCR"));
    runIo();
    assertThat(f).isCompletedWithValue("INCR@7002");
    assertThat(engine.health().score(A)).isZero();
  }

  @Test
  void aCommandWhoseConnectionClosedBeforeSendingItGoesToTheSameNodeAgainWhenNoOtherIsLeft() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config().retryPolicy(RetryPolicy.runOnce()));
    fakes.node(A).script(Fault.CLOSED_BEFORE_SENT);
    CompletableFuture<String> f = engine.executeAsync("INCR", engine.route("k"), false, false,
        CallOptions.defaults(), c -> c.submit("INCR"));
    runIo();
    assertThat(f).isCompletedWithValue("INCR@7001");
    assertThat(fakes.node(A).calls).containsExactly("INCR", "INCR");
    assertThat(engine.health().score(A)).isZero();
  }

  @Test
  void aBackoffIsATimerNotASleep() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config().retryPolicy(RetryPolicy.exponentialBackoff(3, Duration.ofMillis(10), Duration.ofMillis(100))));
    fakes.node(A).script(Fault.REPLICA);
    CompletableFuture<String> f = get();
    runIo();
    assertThat(f).isNotDone();
    clock.advance(Duration.ofMillis(4)); // random 0.5 of 10 ms: due at 5 ms
    runIo();
    assertThat(f).isNotDone();
    clock.advance(Duration.ofMillis(1));
    runIo();
    assertThat(f).isCompletedWithValue("GET@7001");
    assertThat(fakes.node(A).calls).hasSize(2);
  }

  @Test
  void aCallWaitingOutABackoffWhenTheEngineClosesFailsInsteadOfHangingForever() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config().retryPolicy(RetryPolicy.exponentialBackoff(3, Duration.ofMillis(10), Duration.ofMillis(100))));
    fakes.node(A).script(Fault.REPLICA);
    CompletableFuture<String> f = get();
    runIo();
    assertThat(f).isNotDone();
    engine.close();
    assertThat(failure(f)).hasMessageContaining("GET: the Dyno engine closed before the call finished");
  }

  @Test
  void eachAttemptsReadTimeoutIsCappedByTheDeadlineAndTheCallEndsAtIt() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config().retryPolicy(RetryPolicy.exponentialBackoff(3, Duration.ofMillis(40), Duration.ofMillis(100))));
    fakes.node(A).hold = true;
    CompletableFuture<String> f = get(CallOptions.defaults().withDeadline(Duration.ofMillis(50)));
    FakeFactory.Conn conn = fakes.opened.get(0);
    assertThat(conn.readTimeouts).contains(Duration.ofMillis(50)); // one replica: the whole time left
    clock.advance(Duration.ofMillis(40));
    fakes.node(A).held.get(0).completeExceptionally(new SocketTimeoutException("read timed out"));
    runIo(); // a 20 ms backoff would end past the deadline
    assertThat(failure(f)).isInstanceOf(DeadlineExceededException.class).hasMessageContaining("deadline of 50 ms");
  }

  @Test
  void aCallStartedOnATransportThreadIsHandedToTheIoExecutorBeforeItBorrows() {
    engine(config());
    fakes.transportThreads.add(Thread.currentThread());
    CompletableFuture<String> f = get();
    assertThat(f).isNotDone();
    assertThat(fakes.node(A).calls).isEmpty();
    fakes.transportThreads.clear();
    runIo();
    assertThat(f).isCompletedWithValue("GET@7001");
  }

  @Test
  void aReadWithoutAnAnswerAfterTheHedgeDelayAlsoGoesToTheNextReplicaAndTheFirstAnswerWins() {
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(5))));
    fakes.node(A).hold = true;
    CompletableFuture<String> f = get();
    clock.advance(Duration.ofMillis(4));
    runIo();
    assertThat(fakes.node(B).calls).isEmpty();
    clock.advance(Duration.ofMillis(1));
    runIo();
    assertThat(f).isCompletedWithValue("GET@7002");
    assertThat(counter(DynoMetrics.HEDGES, "command", "GET", "result", "sent")).isEqualTo(1);
    assertThat(counter(DynoMetrics.HEDGES, "command", "GET", "result", "won")).isEqualTo(1);
    fakes.node(A).held.get(0).complete("GET@7001"); // the late answer is dropped and counted
    assertThat(f).isCompletedWithValue("GET@7002");
    assertThat(counter(DynoMetrics.HEDGES, "command", "GET", "result", "discarded")).isEqualTo(1);
    assertThat(engine.health().score(A)).isZero(); // slow is not broken
  }

  @Test
  void anAnswerBeforeTheHedgeDelaySendsNoHedge() {
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(5))));
    fakes.node(A).hold = true;
    int background = clock.pendingTasks(); // pool maintenance
    CompletableFuture<String> f = get();
    assertThat(clock.pendingTasks()).isEqualTo(background + 1);
    fakes.node(A).held.get(0).complete("GET@7001");
    assertThat(clock.pendingTasks()).isEqualTo(background); // the hedge timer was cancelled
    clock.advance(Duration.ofMillis(10));
    runIo();
    assertThat(f).isCompletedWithValue("GET@7001");
    assertThat(fakes.node(B).calls).isEmpty();
  }

  @Test
  void whenTheHedgeFailsTheFirstAttemptStillDecides() {
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(5))));
    fakes.node(A).hold = true;
    fakes.node(B).hold = true;
    CompletableFuture<String> f = get();
    clock.advance(Duration.ofMillis(5));
    runIo();
    fakes.node(B).held.get(0).completeExceptionally(new IOException("connection reset by 127.0.0.1:7002"));
    runIo();
    assertThat(f).isNotDone();
    assertThat(fakes.node(C).calls).isEmpty(); // no third attempt while the first is still out
    fakes.node(A).held.get(0).complete("GET@7001");
    assertThat(f).isCompletedWithValue("GET@7001");
  }

  @Test
  void whenBothAttemptsFailTheLastOneToFailGoesOn() {
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(5))));
    fakes.node(A).hold = true;
    fakes.node(B).hold = true;
    CompletableFuture<String> f = get();
    clock.advance(Duration.ofMillis(5));
    runIo();
    fakes.node(A).held.get(0).completeExceptionally(new SocketTimeoutException("read timed out"));
    fakes.node(B).held.get(0).completeExceptionally(new IOException("connection reset by 127.0.0.1:7002"));
    runIo();
    assertThat(f).isCompletedWithValue("GET@7003");
  }

  @Test
  void writesAreNeverHedged() {
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(5))));
    fakes.node(A).hold = true;
    CompletableFuture<String> f = engine.executeAsync("SET", engine.route("k"), true, false,
        CallOptions.defaults(), c -> c.submit("SET"));
    clock.advance(Duration.ofMillis(50));
    runIo();
    assertThat(fakes.node(B).calls).isEmpty();
    assertThat(f).isNotDone();
  }

  @Test
  void aCallsOptionsTurnHedgingOnOrOff() {
    engine(config());
    fakes.node(A).hold = true;
    CompletableFuture<String> hedged = get(CallOptions.defaults().withHedging(HedgePolicy.after(Duration.ofMillis(2))));
    clock.advance(Duration.ofMillis(2));
    runIo();
    assertThat(hedged).isCompletedWithValue("GET@7002");

    engine.close();
    queueIo = false;
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(2))));
    CompletableFuture<String> plain = get(CallOptions.defaults().withHedging(HedgePolicy.off()));
    clock.advance(Duration.ofMillis(10));
    runIo();
    assertThat(plain).isNotDone();
    assertThat(fakes.node(B).calls).hasSize(1); // only the first call's hedge
  }

  @Test
  void atTheNodesP99TheDelayFollowsTheNodesRecentLatencyWithTheFloorUntilItHasSamples() {
    engine(config().hedgeReads(HedgePolicy.nodeP99(Duration.ofMillis(1))));
    fakes.node(A).hold = true;
    for (int i = 0; i < 100; i++) { // 100 answers 20 ms after they were sent
      CompletableFuture<String> f = get();
      clock.advance(Duration.ofMillis(10));
      runIo();
      clock.advance(Duration.ofMillis(10));
      fakes.node(A).held.get(i).complete("GET@7001");
      assertThat(f).isDone();
      runIo();
    }
    int hedgesBefore = fakes.node(B).calls.size(); // the first calls hedged at the 1 ms floor, until A had samples
    assertThat(hedgesBefore).isBetween(50, 99); // a node's p99 needs 50 recent samples
    clock.advance(Duration.ofMillis(200)); // past the p99 cache
    CompletableFuture<String> f = get();
    clock.advance(Duration.ofMillis(15));
    runIo();
    assertThat(fakes.node(B).calls).hasSize(hedgesBefore); // 15 ms is within the node's p99 (about 20 ms)
    clock.advance(Duration.ofMillis(10));
    runIo();
    assertThat(f).isCompletedWithValue("GET@7002");
  }

  @Test
  void aCallsConsistencyIsSetOnTheConnectionBeforeItsCommand() {
    engine(config());
    CompletableFuture<String> f = get(CallOptions.defaults().withConsistency(ConsistencyLevel.DC_QUORUM));
    assertThat(f).isCompletedWithValue("GET@7001");
    assertThat(fakes.opened.stream().filter(c -> c.host().equals(A)).flatMap(c -> c.consistencySent.stream()))
        .containsExactly(ConsistencyLevel.DC_QUORUM);
    assertThat(counter(DynoMetrics.CONSISTENCY_SET, "level", "DC_QUORUM")).isEqualTo(1);
  }

  @Test
  void aClosedEngineFailsTheFutureRatherThanThrowing() {
    engine(config());
    List<Host> owners = engine.route("k");
    engine.close();
    CompletableFuture<String> f = engine.executeAsync("GET", owners, true, true, CallOptions.defaults(),
        c -> c.submit("GET"));
    assertThat(failure(f)).isInstanceOf(IllegalStateException.class).hasMessageContaining("GET was not sent");
  }

  static Throwable failure(CompletableFuture<?> f) {
    assertThat(f).isCompletedExceptionally();
    try {
      f.join();
      throw new AssertionError("not failed");
    } catch (CompletionException e) {
      return e.getCause();
    }
  }

  double counter(String name, String... tags) {
    return registry.counter(registry.createId(name).withTag("app", "test").withTags(tags)).count();
  }
}
