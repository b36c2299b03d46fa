package io.dyno.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.DeadlineExceededException;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.Host;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.exec.FakeFactory.Fault;
import io.dyno.core.health.internal.HealthTracker;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The call contract, part 2: the deadline — no wait, borrow or attempt starts past it, a hung node
 * leaves time for a failover, a dead node's connect costs only its share — on every path a command
 * can take ({@link CallContract.Mode}).
 */
@ParameterizedClass
@EnumSource(CallContract.Mode.class)
class DeadlineContractTest extends CallContract {

  DeadlineContractTest(Mode mode) {
    super(mode);
  }

  /** A hung node: the read blocks for the connection's whole read timeout, then times out. */
  String getWithHung(Host hung, CallOptions options) {
    return call("GET", "k", true, options, c -> {
      if (c.host().equals(hung)) {
        clock.advance(c.readTimeout());
        throw new SocketTimeoutException(
            "read timed out after " + c.readTimeout().toMillis() + " ms");
      }
      return c.call("GET");
    });
  }

  @Test
  void deadlineStopsBackoffThatWouldOverrunIt() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config()
        .retryPolicy(
            RetryPolicy.exponentialBackoff(5, Duration.ofMillis(40), Duration.ofMillis(400))));
    fakes.node(A).always = Fault.REPLICA;
    CallOptions opts = CallOptions.defaults().withDeadline(Duration.ofMillis(50));
    assertThatThrownBy(() -> get(opts))
        .isInstanceOf(DeadlineExceededException.class)
        .hasMessageContaining("deadline of 50 ms")
        .hasCauseInstanceOf(DynoConnectionException.class);
    // waits: 20 ms, then 40 ms would pass the 50 ms deadline → not started
    assertThat(waits).containsExactly(20_000_000L);
    assertThat(fakes.node(A).calls).hasSize(2);
    assertThat(opCount("GET", "deadline_exceeded", "rack1")).isEqualTo(1);
  }

  @Test
  void deadlinePassedDuringARunStartsNoFurtherAttempt() {
    engine(config());
    fakes.node(A).always = Fault.TIMEOUT;
    CallOptions opts = CallOptions.defaults().withDeadline(Duration.ofMillis(100));
    assertThatThrownBy(() -> call("GET", "k", true, opts, c -> {
          clock.advance(Duration.ofMillis(150)); // the run itself took longer than the deadline
          return c.call("GET");
        }))
        .isInstanceOf(DeadlineExceededException.class);
    assertThat(fakes.node(B).calls).isEmpty();
  }

  @Test
  void aRunOnAHungNodeIsCappedAtItsShareOfTheTimeLeftSoTheReplicasAfterItGetTheRest() {
    engine(config().socketTimeout(Duration.ofSeconds(5)));
    CallOptions opts = CallOptions.defaults().withDeadline(Duration.ofMillis(800));
    long start = clock.nanoTime();
    assertThat(getWithHung(A, opts)).isEqualTo("GET@7002");
    // three replicas share 800 ms: 267 ms (rounded up) each
    assertThat(Duration.ofNanos(clock.nanoTime() - start)).isEqualTo(Duration.ofMillis(267));
    FakeFactory.Conn a = only(fakes.opened, A);
    assertThat(a.readTimeouts).startsWith(Duration.ofMillis(267));
    if (!mode.multiplexed) {
      // the timed-out connection is gone for good: closed, out of the pool, never handed out again
      assertThat(a.closed).isTrue();
      assertThat(engine.poolOf(A).size()).isZero();
    }
    // rack2 had 533 ms left and rack3 still untried: capped at half, then its socket timeout
    // restored
    assertThat(only(fakes.opened, B).readTimeouts)
        .containsExactly(Duration.ofMillis(267), Duration.ofSeconds(5));
    // silent for 267 ms (at least silentNodeAfter) while B answered: out of rotation until 3
    // probes answer. B answered after A's timeout, so the verdict waited for its grace.
    clock.advance(HealthTracker.SILENCE_GRACE);
    assertThat(engine.health().isUp(A)).isFalse();
    assertThat(get()).isEqualTo("GET@7002");
    clock.advance(Duration.ofSeconds(3));
    assertThat(engine.health().isUp(A)).isTrue();
    assertThat(get())
        .isEqualTo("GET@7001"); // on a new connection (the old one would throw "used after close")
  }

  @Test
  void
      withNowhereElseToGoARunGetsAllTheTimeLeftAndTheCallerGetsDeadlineExceededExactlyAtTheDeadline() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config().socketTimeout(Duration.ofSeconds(5)));
    CallOptions opts = CallOptions.defaults().withDeadline(Duration.ofMillis(800));
    long start = clock.nanoTime();
    assertThatThrownBy(() -> getWithHung(A, opts))
        .isInstanceOf(DeadlineExceededException.class)
        .hasMessageContaining("deadline of 800 ms")
        .hasCauseInstanceOf(DynoConnectionException.class);
    assertThat(Duration.ofNanos(clock.nanoTime() - start)).isEqualTo(Duration.ofMillis(800));
    assertThat(only(fakes.opened, A).readTimeouts).startsWith(Duration.ofMillis(800));
    if (!mode.multiplexed) {
      assertThat(only(fakes.opened, A).closed).isTrue();
    }
  }

  @Test
  void aNonIdempotentCommandGetsAllTheTimeLeftBecauseItWouldNotMoveOnAfterATimeout() {
    engine(config().socketTimeout(Duration.ofSeconds(5)));
    CallOptions opts = CallOptions.defaults().withDeadline(Duration.ofMillis(800));
    assertThat(incr(opts)).isEqualTo("INCR@7001");
    assertThat(only(fakes.opened, A).readTimeouts)
        .containsExactly(Duration.ofMillis(800), Duration.ofSeconds(5));
  }

  @Test
  void theSocketIsNotTouchedWithoutADeadlineOrWithMoreTimeLeftThanTheSocketTimeout() {
    engine(config().socketTimeout(Duration.ofSeconds(2)));
    assertThat(get()).isEqualTo("GET@7001");
    assertThat(get(CallOptions.defaults().withDeadline(Duration.ofSeconds(10))))
        .isEqualTo("GET@7001");
    assertThat(only(fakes.opened, A).readTimeouts).isEmpty();
    // a data error keeps the connection: its socket timeout is restored before it goes back
    fakes.node(A).script(Fault.DATA);
    assertThatThrownBy(() -> get(CallOptions.defaults().withDeadline(Duration.ofMillis(300))))
        .isInstanceOf(FakeFactory.DataError.class);
    assertThat(only(fakes.opened, A).readTimeouts)
        .as("a third of 300 ms: three replicas could take it")
        .containsExactly(Duration.ofMillis(100), Duration.ofSeconds(2));
  }

  /** Issue 23: a node whose connect hangs must not take the whole deadline from its healthy replicas. */
  @Test
  void aDeadNodesConnectGetsOnlyItsShareOfTheDeadlineAndTheCallIsServedByAReplica() {
    engine(config()
        .minConnsPerHost(0)
        .failOnStartupIfNoHosts(false)
        .connectTimeout(Duration.ofSeconds(3))
        .maxTimeoutWhenExhausted(Duration.ofMillis(800)));
    fakes.node(A).connectHangs = clock::advance;
    long start = clock.nanoTime();
    assertThat(get(CallOptions.defaults().withDeadline(Duration.ofMillis(600))))
        .isEqualTo("GET@7002");
    // three candidates share 600 ms: rack1's connect may take 200 ms, not the 600 ms left (nor 800
    // ms)
    assertThat(fakes.connectTimeouts.get(0)).isEqualTo(Duration.ofMillis(200));
    assertThat(Duration.ofNanos(clock.nanoTime() - start)).isEqualTo(Duration.ofMillis(200));
  }

  @Test
  void theLastCandidateMayUseAllTheTimeLeftToConnect() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config()
        .minConnsPerHost(0)
        .failOnStartupIfNoHosts(false)
        .connectTimeout(Duration.ofSeconds(3)));
    fakes.node(A).connectHangs = clock::advance;
    assertThatThrownBy(() -> get(CallOptions.defaults().withDeadline(Duration.ofMillis(600))))
        .isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining("connect timed out after 600 ms");
  }

  @Test
  void withoutADeadlineABorrowWaitsAtMostMaxTimeoutWhenExhausted() {
    engine(config()
        .minConnsPerHost(0)
        .failOnStartupIfNoHosts(false)
        .connectTimeout(Duration.ofSeconds(3))
        .maxTimeoutWhenExhausted(Duration.ofMillis(800)));
    fakes.node(A).connectHangs = clock::advance;
    assertThat(get()).isEqualTo("GET@7002");
    assertThat(fakes.connectTimeouts.get(0)).isEqualTo(Duration.ofMillis(800));
  }
}
