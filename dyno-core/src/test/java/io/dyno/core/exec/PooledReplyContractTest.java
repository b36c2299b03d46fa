package io.dyno.core.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.core.config.HedgePolicy;
import io.dyno.core.metrics.DynoMetrics;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The call contract on a transport that holds the caller until the reply (pooled sockets): the
 * reply is there before any hedge could be sent.
 */
@ParameterizedClass
@EnumSource(
    value = CallContract.Mode.class,
    names = {"BLOCKING_POOLED", "ASYNC_POOLED"})
class PooledReplyContractTest extends CallContract {

  PooledReplyContractTest(Mode mode) {
    super(mode);
  }

  @Test
  void onABlockingTransportTheReplyIsThereBeforeAnyHedge() {
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(5))));
    assertThat(get()).isEqualTo("GET@7001");
    clock.advance(Duration.ofMillis(10));
    runIo();
    assertThat(fakes.node(B).calls).isEmpty();
    assertThat(counter(DynoMetrics.HEDGES, "command", "GET", "result", "sent")).isZero();
  }
}
