package io.dyno.core.pool;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.Host;
import io.dyno.core.PoolTimeoutException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.exec.FakeFactory;
import io.dyno.core.exec.TestTopology;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.pool.internal.NodePool;
import io.dyno.core.pool.internal.Pooled;
import io.dyno.core.testing.ManualScheduler;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A borrow's wait for a free connection is measured on the pool's ticker, not on real time. */
class NodePoolTimeoutTest {
  final Host host = TestTopology.host("rack1", 7502);
  final ManualScheduler clock = new ManualScheduler();
  final DynoConfig config = DynoConfig.builder()
      .applicationName("t")
      .minConnsPerHost(1)
      .maxConnsPerHost(1)
      .build();
  final NodePool<FakeFactory.Conn> pool =
      FakePools.pool(host, config, clock, new Meters(new DefaultRegistry(), "t"), () -> true);

  @AfterEach
  void close() {
    pool.close();
  }

  @Test
  @Timeout(30) // an hour of real time would fail here: only the pool's clock may end the wait
  void aBorrowOnAFullPoolTimesOutWhenTheClockHasMovedByItsTimeout() throws Exception {
    pool.fill(1);
    Pooled<FakeFactory.Conn> held = pool.borrow(SECONDS.toNanos(1));
    // Waiting once it has registered as a waiter and read its deadline off the clock.
    CompletableFuture<Pooled<FakeFactory.Conn>> second =
        FakePools.waitingBorrow(pool, HOURS.toNanos(1));

    clock.advance(Duration.ofHours(1));

    Throwable t = catchThrowable(() -> second.get(10, SECONDS)).getCause();
    assertThat(t).isInstanceOf(PoolTimeoutException.class).hasMessageContaining(host.toString());
    assertThat(((PoolTimeoutException) t).waitedNanos())
        .as("waited its timeout exactly, on the pool's clock")
        .isEqualTo(HOURS.toNanos(1));
    pool.release(held);
    assertThat(pool.borrow(SECONDS.toNanos(1)))
        .as("the pool still serves once a connection is free")
        .isSameAs(held);
  }
}
