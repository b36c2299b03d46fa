package io.dyno.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.DeadlineExceededException;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.exec.FakeFactory.Fault;
import io.dyno.core.metrics.DynoMetrics;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The call contract, part 4: a reply on its way — hedged reads, timers instead of sleeps, the
 * connection free while the reply travels. Most rules here need a transport that does not hold the
 * caller (the multiplexed one, where a blocking call is the asynchronous call waited on); on a
 * blocking transport the reply is there before any hedge could be sent, which is checked too.
 */
@ParameterizedClass
@EnumSource(
    value = CallContract.Mode.class,
    names = {"ASYNC_MULTIPLEXED", "BLOCKING_MULTIPLEXED"})
class HedgeContractTest extends CallContract {

  HedgeContractTest(Mode mode) {
    super(mode);
  }

  /** A read whose replies the test completes (each node's {@code held}) while {@code hold} is set. */
  CompletableFuture<String> read(CallOptions options) {
    return engine.executeAsync(
        "GET", "k", engine.route("k"), true, true, options, c -> c.submit("GET"));
  }

  CompletableFuture<String> read() {
    return read(CallOptions.defaults());
  }

  @Test
  void aReplyOnItsWayHoldsNoPooledConnectionAndCompletesTheCallWhenItArrives() {
    engine(config());
    fakes.node(A).hold = true;
    CompletableFuture<String> f = read();
    assertThat(f).isNotDone();
    assertThat(engine.poolOf(A).active()).isZero(); // back in the pool while the reply is out
    fakes.node(A).held.get(0).complete("GET@7001");
    assertThat(f).isCompletedWithValue("GET@7001");
    assertThat(opCount("GET", "success", "rack1")).isEqualTo(1);
  }

  @Test
  void aFailedReplyFailsOverOnTheIoExecutorNeverOnTheThreadThatDeliveredIt() {
    engine(config());
    queueIo = true;
    fakes.node(A).hold = true;
    CompletableFuture<String> f = read();
    fakes
        .node(A)
        .held
        .get(0)
        .completeExceptionally(new IOException("connection reset by 127.0.0.1:7001"));
    assertThat(f).isNotDone();
    assertThat(fakes.node(B).calls).isEmpty(); // not on the delivering thread
    runIo();
    assertThat(f).isCompletedWithValue("GET@7002");
    assertThat(engine.health().score(A)).isEqualTo(1.0);
    assertThat(counter(DynoMetrics.OP_RETRIES, "command", "GET")).isEqualTo(1);
  }

  @Test
  void aBackoffIsATimerNotASleep() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config()
        .retryPolicy(
            RetryPolicy.exponentialBackoff(3, Duration.ofMillis(10), Duration.ofMillis(100))));
    fakes.node(A).script(Fault.REPLICA);
    CompletableFuture<String> f =
        start("GET", "k", true, CallOptions.defaults(), c -> c.call("GET"));
    deliver();
    runIo();
    assertThat(f).isNotDone();
    clock.advance(Duration.ofMillis(4)); // random 0.5 of 10 ms: due at 5 ms
    runIo();
    assertThat(f).isNotDone();
    clock.advance(Duration.ofMillis(1));
    runIo();
    deliver();
    assertThat(f).isCompletedWithValue("GET@7001");
    assertThat(fakes.node(A).calls).hasSize(2);
  }

  @Test
  void eachAttemptsReadTimeoutIsCappedByTheDeadlineAndTheCallEndsAtIt() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config()
        .retryPolicy(
            RetryPolicy.exponentialBackoff(3, Duration.ofMillis(40), Duration.ofMillis(100))));
    fakes.node(A).hold = true;
    CompletableFuture<String> f = read(CallOptions.defaults().withDeadline(Duration.ofMillis(50)));
    FakeFactory.Conn conn = fakes.opened.get(0);
    assertThat(conn.readTimeouts)
        .contains(Duration.ofMillis(50)); // one replica: the whole time left
    clock.advance(Duration.ofMillis(40));
    fakes.node(A).held.get(0).completeExceptionally(new SocketTimeoutException("read timed out"));
    runIo(); // a 20 ms backoff would end past the deadline
    assertThatThrownBy(f::join)
        .cause()
        .isInstanceOf(DeadlineExceededException.class)
        .hasMessageContaining("deadline of 50 ms");
  }

  @Test
  void aReadWithoutAnAnswerAfterTheHedgeDelayAlsoGoesToTheNextReplicaAndTheFirstAnswerWins() {
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(5))));
    fakes.node(A).hold = true;
    CompletableFuture<String> f = read();
    clock.advance(Duration.ofMillis(4));
    runIo();
    assertThat(fakes.node(B).calls).isEmpty();
    clock.advance(Duration.ofMillis(1));
    runIo();
    assertThat(f).isCompletedWithValue("GET@7002");
    assertThat(counter(DynoMetrics.HEDGES, "command", "GET", "result", "sent")).isEqualTo(1);
    assertThat(counter(DynoMetrics.HEDGES, "command", "GET", "result", "won")).isEqualTo(1);
    assertThat(opCount("GET", "success", "rack2")).isEqualTo(1);
    fakes.node(A).held.get(0).complete("GET@7001"); // the late answer is dropped and counted
    assertThat(f).isCompletedWithValue("GET@7002");
    assertThat(counter(DynoMetrics.HEDGES, "command", "GET", "result", "discarded"))
        .isEqualTo(1);
    assertThat(engine.health().score(A)).isZero(); // slow is not broken
  }

  @Test
  void anAnswerBeforeTheHedgeDelaySendsNoHedge() {
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(5))));
    fakes.node(A).hold = true;
    int background = clock.pendingTasks(); // pool maintenance
    CompletableFuture<String> f = read();
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
    CompletableFuture<String> f = read();
    clock.advance(Duration.ofMillis(5));
    runIo();
    fakes
        .node(B)
        .held
        .get(0)
        .completeExceptionally(new IOException("connection reset by 127.0.0.1:7002"));
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
    CompletableFuture<String> f = read();
    clock.advance(Duration.ofMillis(5));
    runIo();
    fakes.node(A).held.get(0).completeExceptionally(new SocketTimeoutException("read timed out"));
    fakes
        .node(B)
        .held
        .get(0)
        .completeExceptionally(new IOException("connection reset by 127.0.0.1:7002"));
    runIo();
    assertThat(f).isCompletedWithValue("GET@7003");
  }

  @Test
  void writesAreNeverHedged() {
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(5))));
    fakes.node(A).hold = true;
    CompletableFuture<String> f = engine.executeAsync(
        "SET", engine.route("k"), true, false, CallOptions.defaults(), c -> c.submit("SET"));
    clock.advance(Duration.ofMillis(50));
    runIo();
    assertThat(fakes.node(B).calls).isEmpty();
    assertThat(f).isNotDone();
  }

  @Test
  void aCallsOptionsTurnHedgingOnOrOff() {
    engine(config());
    fakes.node(A).hold = true;
    CompletableFuture<String> hedged =
        read(CallOptions.defaults().withHedging(HedgePolicy.after(Duration.ofMillis(2))));
    clock.advance(Duration.ofMillis(2));
    runIo();
    assertThat(hedged).isCompletedWithValue("GET@7002");

    engine.close();
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(2))));
    CompletableFuture<String> plain = read(CallOptions.defaults().withHedging(HedgePolicy.off()));
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
      CompletableFuture<String> f = read();
      clock.advance(Duration.ofMillis(10));
      runIo();
      clock.advance(Duration.ofMillis(10));
      fakes.node(A).held.get(i).complete("GET@7001");
      assertThat(f).isDone();
      runIo();
    }
    int hedgesBefore =
        fakes.node(B).calls.size(); // the first calls hedged at the 1 ms floor, until A had samples
    assertThat(hedgesBefore).isBetween(50, 99); // a node's p99 needs 50 recent samples
    clock.advance(Duration.ofMillis(200)); // past the p99 cache
    CompletableFuture<String> f = read();
    clock.advance(Duration.ofMillis(15));
    runIo();
    assertThat(fakes.node(B).calls)
        .hasSize(hedgesBefore); // 15 ms is within the node's p99 (about 20 ms)
    clock.advance(Duration.ofMillis(10));
    runIo();
    assertThat(f).isCompletedWithValue("GET@7002");
  }
}
