package io.dyno.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.engine.internal.Operation;
import io.dyno.core.exec.internal.Engine;
import io.dyno.core.metrics.DynoMetrics;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The call contract where the engine's blocking call carries the command (a blocking call on
 * pooled sockets): nested blocking calls, and start-up, which is the same whatever the calls.
 */
@ParameterizedClass
@EnumSource(
    value = CallContract.Mode.class,
    names = {"BLOCKING_POOLED"})
class BlockingCallContractTest extends CallContract {

  BlockingCallContractTest(Mode mode) {
    super(mode);
  }

  @Test
  void idleConnectionsAboveTheMinimumAreClosed() {
    engine(config().minConnsPerHost(1).idleTimeout(Duration.ofSeconds(60)));
    // hold three connections at once so the pool grows to 3
    Operation<FakeFactory.Conn, String> inner = c3 -> c3.call("GET");
    Operation<FakeFactory.Conn, String> middle =
        c2 -> engine.execute(engine.call("GET").key("k").idempotent(true).build(), inner);
    Operation<FakeFactory.Conn, String> outer =
        c1 -> engine.execute(engine.call("GET").key("k").idempotent(true).build(), middle);
    engine.execute(engine.call("GET").key("k").idempotent(true).build(), outer);
    assertThat(engine.poolOf(A).size()).isEqualTo(3);
    clock.advance(Duration.ofSeconds(61));
    assertThat(engine.poolOf(A).size()).isEqualTo(1);
    assertThat(counter(DynoMetrics.CONNECTIONS_CLOSED, "node", A.id(), "reason", "idle"))
        .isEqualTo(2);
  }

  @Test
  @Timeout(30) // an hour of real time would fail here: only the engine's clock may end the wait
  void startupFailsWhenNoNodeAnswersWithinTheStartupTimeoutOnTheEnginesClock() {
    fakes.node(A).refuseConnect = true;
    fakes.node(B).refuseConnect = true;
    fakes.node(C).refuseConnect = true;
    CompletableFuture<Engine<FakeFactory.Conn>> starting =
        CompletableFuture.supplyAsync(() -> engine(config().startupTimeout(Duration.ofHours(1))));
    // Start-up reads the clock when it begins to wait, at a moment this thread cannot see: advance
    // until it gives up.
    while (!starting.isDone()) {
      clock.advance(Duration.ofMinutes(1));
    }
    assertThatThrownBy(starting::join)
        .cause()
        .isInstanceOf(NoAvailableHostsException.class)
        .hasMessageContaining("no Dynomite node answered within 3600000 ms")
        .hasMessageContaining("127.0.0.1:7001");
    engine = null;
  }
}
