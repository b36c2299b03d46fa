package io.dyno.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.Host;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.exec.FakeFactory.Fault;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The call contract where the engine's asynchronous call carries the command (every mode but a
 * blocking call on pooled sockets): what only a call that holds no thread can show.
 */
@ParameterizedClass
@EnumSource(
    value = CallContract.Mode.class,
    names = {"ASYNC_POOLED", "ASYNC_MULTIPLEXED", "BLOCKING_MULTIPLEXED"})
class AsyncCallContractTest extends CallContract {

  AsyncCallContractTest(Mode mode) {
    super(mode);
  }

  @Test
  void aClosedEngineFailsAnAsynchronousCallsFutureRatherThanThrowing() {
    engine(config());
    List<Host> owners = engine.route("k");
    engine.close();
    CompletableFuture<String> f = engine.executeAsync(
        engine.call("GET").on(owners).idempotent(true).build(), c -> c.submit("GET"));
    assertThat(f).isCompletedExceptionally();
    assertThatThrownBy(f::join)
        .cause()
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("GET was not sent");
  }

  @Test
  void aCallWaitingOutABackoffWhenTheEngineClosesFailsInsteadOfHangingForever() {
    topology.set(TestTopology.builder("rack1").node(A, 0).version(2).build());
    engine(config()
        .retryPolicy(
            RetryPolicy.exponentialBackoff(3, Duration.ofMillis(10), Duration.ofMillis(100))));
    fakes.node(A).script(Fault.REPLICA);
    CompletableFuture<String> f =
        start("GET", "k", true, CallOptions.defaults(), c -> c.call("GET"));
    runIo();
    deliver();
    runIo();
    assertThat(f).isNotDone();
    engine.close();
    assertThatThrownBy(f::join)
        .cause()
        .hasMessageContaining("GET: the Dyno engine closed before the call finished");
    assertThat(opCount("GET", "error", "rack1")).isEqualTo(1);
  }

  @Test
  void aCallStartedOnATransportThreadIsHandedToTheIoExecutorBeforeItBorrows() {
    engine(config());
    queueIo = true;
    fakes.transportThreads.add(Thread.currentThread());
    CompletableFuture<String> f =
        start("GET", "k", true, CallOptions.defaults(), c -> c.call("GET"));
    assertThat(f).isNotDone();
    assertThat(fakes.node(A).calls).isEmpty();
    fakes.transportThreads.clear();
    assertThat(await(f)).isEqualTo("GET@7001");
  }
}
