package io.dyno.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.DeadlineExceededException;
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
 * The call contract on a transport that does not hold the caller while a reply is on its way (the
 * multiplexed one, where a blocking call is the asynchronous call waited on): the connection is free
 * while the reply travels, a failed reply goes on from the I/O executor, waits are timers, and the
 * deadline caps each attempt's read. (Hedged reads, on every transport: {@link HedgeContractTest}.)
 */
@ParameterizedClass
@EnumSource(
    value = CallContract.Mode.class,
    names = {"ASYNC_MULTIPLEXED", "BLOCKING_MULTIPLEXED"})
class ReplyOnItsWayContractTest extends CallContract {

  ReplyOnItsWayContractTest(Mode mode) {
    super(mode);
  }

  /** A read whose replies the test completes (each node's {@code held}) while {@code hold} is set. */
  CompletableFuture<String> read(CallOptions options) {
    return engine.executeAsync(
        engine
            .call("GET")
            .key("k")
            .on(engine.route("k"))
            .idempotent(true)
            .options(options)
            .build(),
        c -> c.submit("GET"));
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
}
