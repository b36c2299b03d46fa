package io.dyno.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.core.Host;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.metrics.DynoMetrics;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The call contract, hedged reads, on every path: a read with no answer after the hedge delay also
 * goes to the next replica and the first answer wins. On a transport that holds a thread until the
 * reply (pooled), a hedged read runs its attempts on the engine's threads and its caller — blocking
 * or not — takes whichever answer comes first, while the slower attempt still reads.
 *
 * <p>Each node holds its replies while {@code hold} is set; the test answers them ({@code held}). On
 * the pooled transport the attempt waiting for such a reply holds a thread, so the engine's I/O
 * tasks and the caller run on threads of their own, and the test awaits what they do.
 */
@ParameterizedClass
@EnumSource(CallContract.Mode.class)
class HedgeContractTest extends CallContract {
  private static final Duration WITHIN = Duration.ofSeconds(10);

  /** The caller of a pooled call, whose attempt (or whose wait for it) blocks: a thread of its own. */
  private final Executor callers = r -> {
    Thread t = new Thread(r, "test-caller");
    t.setDaemon(true);
    t.start();
  };

  HedgeContractTest(Mode mode) {
    super(mode);
    ioOnThreads = !mode.multiplexed;
  }

  @AfterEach
  void answerWhatIsStillHeld() {
    IOException over = new IOException("the test is over");
    fakes.nodes.values().forEach(n -> n.held.forEach(f -> f.completeExceptionally(over)));
  }

  CompletableFuture<String> read(CallOptions options) {
    return call("GET", true, options);
  }

  CompletableFuture<String> read() {
    return read(CallOptions.defaults());
  }

  /**
   * {@code command} on the owners of "k" in the mode under test; the future ends with the call. On
   * the multiplexed transport a blocking call is the asynchronous one waited on; on the pooled one
   * the attempt waits for the node's reply, as a socket read does.
   */
  private CompletableFuture<String> call(String command, boolean read, CallOptions options) {
    List<Host> owners = engine.route("k");
    if (mode.multiplexed) {
      return engine.executeAsync(
          engine
              .call(command)
              .key("k")
              .on(owners)
              .idempotent(true)
              .options(options)
              .build(),
          c -> c.submit(command));
    }
    if (mode.async) {
      return CompletableFuture.supplyAsync(
              () -> engine.executeAsync(
                  engine
                      .call(command)
                      .key("k")
                      .on(owners)
                      .idempotent(true)
                      .options(options)
                      .build(),
                  c -> {
                    return CompletableFuture.completedFuture(replyOf(c.submit(command)));
                  }),
              callers)
          .thenCompose(f -> f);
    }
    return CompletableFuture.supplyAsync(
        () -> engine.execute(
            engine
                .call(command)
                .key("k")
                .on(owners)
                .idempotent(true)
                .options(options)
                .build(),
            c -> replyOf(c.submit(command))),
        callers);
  }

  /** Waits for a node's reply as a blocking socket read does; its failure thrown as such a read throws it. */
  private static String replyOf(CompletableFuture<String> reply) throws Exception {
    try {
      return reply.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception x ? x : e;
    }
  }

  /** Waits until {@code n} commands reached {@code h} and wait there for the test's answer. */
  private void awaitHeld(Host h, int n) {
    until(() -> fakes.node(h).held.size() >= n);
  }

  /** Waits (polling every millisecond) until {@code condition} holds. */
  private static void until(Callable<Boolean> condition) {
    Awaitility.await()
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(1))
        .atMost(WITHIN)
        .until(condition);
  }

  /**
   * On the pooled transport, waits until the engine's I/O tasks are done but the {@code blocked}
   * ones waiting for a node's reply: e.g. a hedge that a timer just handed over has been sent.
   */
  private void awaitIoDoneBut(int blocked) {
    until(() -> ioTasksRunning.get() == blocked);
  }

  private double hedges(String result) {
    return counter(DynoMetrics.HEDGES, "command", "GET", "result", result);
  }

  @Test
  void aReadWithoutAnAnswerAfterTheHedgeDelayAlsoGoesToTheNextReplicaAndTheFirstAnswerWins() {
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(5))));
    fakes.node(A).hold = true;
    CompletableFuture<String> f = read();
    awaitHeld(A, 1);
    clock.advance(Duration.ofMillis(4));
    runIo();
    assertThat(fakes.node(B).calls).isEmpty();
    clock.advance(Duration.ofMillis(1));
    runIo();
    // answered while the first attempt still waits for A (on the pooled transport, reading its
    // socket)
    assertThat(f).succeedsWithin(WITHIN).isEqualTo("GET@7002");
    assertThat(hedges("sent")).isEqualTo(1);
    assertThat(hedges("won")).isEqualTo(1);
    assertThat(opCount("GET", "success", "rack2")).isEqualTo(1);
    fakes.node(A).held.get(0).complete("GET@7001"); // the late answer is dropped and counted
    until(() -> hedges("discarded") == 1);
    assertThat(f).isCompletedWithValue("GET@7002");
    assertThat(engine.health().score(A)).isZero(); // slow is not broken
  }

  @Test
  void anAnswerBeforeTheHedgeDelaySendsNoHedge() {
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(5))));
    fakes.node(A).hold = true;
    int background = clock.pendingTasks(); // pool maintenance
    CompletableFuture<String> f = read();
    awaitHeld(A, 1);
    assertThat(clock.pendingTasks()).isEqualTo(background + 1);
    fakes.node(A).held.get(0).complete("GET@7001");
    assertThat(f).succeedsWithin(WITHIN).isEqualTo("GET@7001");
    assertThat(clock.pendingTasks()).isEqualTo(background); // the hedge timer was cancelled
    clock.advance(Duration.ofMillis(10));
    runIo();
    assertThat(fakes.node(B).calls).isEmpty();
    assertThat(hedges("sent")).isZero();
  }

  @Test
  void whenTheHedgeFailsTheFirstAttemptStillDecides() {
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(5))));
    fakes.node(A).hold = true;
    fakes.node(B).hold = true;
    CompletableFuture<String> f = read();
    awaitHeld(A, 1);
    clock.advance(Duration.ofMillis(5));
    awaitHeld(B, 1);
    fakes
        .node(B)
        .held
        .get(0)
        .completeExceptionally(new IOException("connection reset by 127.0.0.1:7002"));
    runIo();
    Awaitility.await()
        .atMost(WITHIN)
        .until(() -> engine.health().score(B) == 1.0); // the failure is in
    assertThat(f).isNotDone();
    assertThat(fakes.node(C).calls).isEmpty(); // no third attempt while the first is still out
    fakes.node(A).held.get(0).complete("GET@7001");
    assertThat(f).succeedsWithin(WITHIN).isEqualTo("GET@7001");
  }

  @Test
  void whenBothAttemptsFailTheLastOneToFailGoesOn() {
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(5))));
    fakes.node(A).hold = true;
    fakes.node(B).hold = true;
    CompletableFuture<String> f = read();
    awaitHeld(A, 1);
    clock.advance(Duration.ofMillis(5));
    awaitHeld(B, 1);
    fakes.node(A).held.get(0).completeExceptionally(new SocketTimeoutException("read timed out"));
    fakes
        .node(B)
        .held
        .get(0)
        .completeExceptionally(new IOException("connection reset by 127.0.0.1:7002"));
    runIo();
    assertThat(f).succeedsWithin(WITHIN).isEqualTo("GET@7003");
  }

  @Test
  void writesAreNeverHedged() {
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(5))));
    fakes.node(A).hold = true;
    CompletableFuture<String> f = call("SET", false, CallOptions.defaults());
    awaitHeld(A, 1);
    clock.advance(Duration.ofMillis(50));
    runIo();
    assertThat(fakes.node(B).calls).isEmpty();
    assertThat(f).isNotDone();
    assertThat(hedges("sent")).isZero();
  }

  @Test
  void aCallsOptionsTurnHedgingOnOrOff() {
    engine(config());
    fakes.node(A).hold = true;
    CompletableFuture<String> hedged =
        read(CallOptions.defaults().withHedging(HedgePolicy.after(Duration.ofMillis(2))));
    awaitHeld(A, 1);
    clock.advance(Duration.ofMillis(2));
    runIo();
    assertThat(hedged).succeedsWithin(WITHIN).isEqualTo("GET@7002");
    fakes
        .node(A)
        .held
        .get(0)
        .complete("GET@7001"); // ends the first attempt: its connection is back
    until(() -> hedges("discarded") == 1);

    engine.close();
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(2))));
    CompletableFuture<String> plain = read(CallOptions.defaults().withHedging(HedgePolicy.off()));
    awaitHeld(A, 2);
    clock.advance(Duration.ofMillis(10));
    runIo();
    assertThat(plain).isNotDone();
    assertThat(fakes.node(B).calls).hasSize(1); // only the first call's hedge
  }

  @Test
  void atTheNodesP99TheDelayFollowsTheNodesRecentLatencyWithTheFloorUntilItHasSamples() {
    // A stays the preferred node however slow it is: the rule here is the hedge's delay
    engine(config().hedgeReads(HedgePolicy.nodeP99(Duration.ofMillis(1))).steerOutliers(false));
    fakes.node(A).hold = true;
    for (int i = 0; i < 100; i++) { // 100 answers 20 ms after they were sent
      CompletableFuture<String> f = read();
      awaitHeld(A, i + 1);
      clock.advance(Duration.ofMillis(10));
      runIo();
      awaitIoDoneBut(mode.multiplexed ? 0 : 1); // the hedge, if its time came, is sent
      clock.advance(Duration.ofMillis(10));
      fakes.node(A).held.get(i).complete("GET@7001");
      assertThat(f).succeedsWithin(WITHIN);
      runIo();
      // A's answer has been taken in (its latency recorded): dropped when the hedge won, else the
      // call's
      int hedged = fakes.node(B).calls.size();
      until(() -> hedges("discarded") == hedged);
    }
    int hedgesBefore =
        fakes.node(B).calls.size(); // the first calls hedged at the 1 ms floor, until A had samples
    assertThat(hedgesBefore).isBetween(50, 99); // a node's p99 needs 50 recent samples
    clock.advance(Duration.ofMillis(200)); // past the p99 cache
    CompletableFuture<String> f = read();
    awaitHeld(A, 101);
    clock.advance(Duration.ofMillis(15));
    runIo();
    awaitIoDoneBut(mode.multiplexed ? 0 : 1);
    assertThat(fakes.node(B).calls)
        .hasSize(hedgesBefore); // 15 ms is within the node's p99 (about 20 ms)
    clock.advance(Duration.ofMillis(10));
    runIo();
    assertThat(f).succeedsWithin(WITHIN).isEqualTo("GET@7002");
  }
}
