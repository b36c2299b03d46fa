package io.dyno.core.pool;

import static java.util.concurrent.TimeUnit.HOURS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.DynoConnectionException;
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
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A caller waiting for a connection to a node that leaves rotation meanwhile (a dead node's connect
 * pending, its connections broken) is released at once, unsent, so that its call fails over; one
 * waiting on a borrowed connection's reply from a node found silent has that connection abandoned.
 */
class NodePoolLeavesRotationTest {
  final Host host = TestTopology.host("rack1", 7503);
  final ManualScheduler clock = new ManualScheduler();
  final DynoConfig config = DynoConfig.builder()
      .applicationName("t")
      .minConnsPerHost(1)
      .maxConnsPerHost(1)
      .build();
  volatile boolean inRotation = true;
  final NodePool<FakeFactory.Conn> pool =
      FakePools.pool(host, config, clock, new Meters(new DefaultRegistry(), "t"), () -> inRotation);

  @AfterEach
  void close() {
    pool.close();
  }

  @Test
  @Timeout(30) // the pool's clock never moves: only leaving rotation may end the wait
  void aWaitForAConnectionEndsAtOnceWhenTheNodeLeavesRotationNamingItAsFailed() throws Exception {
    pool.fill(1);
    Pooled<FakeFactory.Conn> held = pool.borrow(SECONDS.toNanos(1));
    CompletableFuture<Pooled<FakeFactory.Conn>> second =
        FakePools.waitingBorrow(pool, HOURS.toNanos(1));

    inRotation = false;

    Throwable t = catchThrowable(() -> second.get(10, SECONDS)).getCause();
    assertThat(t)
        .isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining(host.toString())
        .hasMessageContaining("left rotation");
    assertThat(t.getCause())
        .as("a cause: the node failed, not merely busy (a held write stays in its rack)")
        .isNotNull();
    pool.release(held);
  }

  @Test
  @Timeout(30)
  void aBorrowThatGivesUpWhileAConnectGetsNoHandshakeReportsTheStalledConnect() throws Exception {
    DynoConfig one = DynoConfig.builder()
        .applicationName("t")
        .minConnsPerHost(1)
        .maxConnsPerHost(2)
        .silentNodeAfter(Duration.ofMillis(150))
        .build();
    FakeFactory factory = new FakeFactory();
    List<Long> stalled = new CopyOnWriteArrayList<>();
    CountDownLatch connecting = new CountDownLatch(1);
    CountDownLatch blackholeLifted = new CountDownLatch(1);
    ExecutorService io = Executors.newSingleThreadExecutor();
    NodePool<FakeFactory.Conn> p = new NodePool<>(
        host,
        host,
        factory,
        () -> one,
        io,
        clock,
        new Meters(new DefaultRegistry(), "t"),
        new NodePool.Events() {
          @Override
          public void connectFailed(Host h, Throwable cause) {}

          @Override
          public void connected(Host h) {}

          @Override
          public void connectStalled(Host h, long waitedNanos) {
            stalled.add(waitedNanos);
          }
        });
    try {
      Pooled<FakeFactory.Conn> held = p.borrow(SECONDS.toNanos(1)); // opened on this thread
      factory.node(host).connectHangs = timeout -> {
        connecting.countDown();
        try {
          blackholeLifted.await(); // a SYN nobody answers
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      };
      CompletableFuture<Pooled<FakeFactory.Conn>> second =
          FakePools.waitingBorrow(p, Duration.ofMillis(200).toNanos());
      assertThat(connecting.await(10, SECONDS)).as("a background connect began").isTrue();

      clock.advance(Duration.ofMillis(200));

      Throwable t = catchThrowable(() -> second.get(10, SECONDS)).getCause();
      assertThat(t).isInstanceOf(PoolTimeoutException.class);
      assertThat(stalled)
          .as("the connect got no answer for the whole wait, past silentNodeAfter")
          .containsExactly(Duration.ofMillis(200).toNanos());
      p.release(held);
    } finally {
      blackholeLifted.countDown();
      p.close();
      io.shutdownNow();
    }
  }

  @Test
  void aNodeFoundSilentHasItsBorrowedConnectionsAbandonedAndItsIdleOnesKept() {
    DynoConfig two = DynoConfig.builder()
        .applicationName("t")
        .minConnsPerHost(2)
        .maxConnsPerHost(2)
        .build();
    NodePool<FakeFactory.Conn> p =
        FakePools.pool(host, two, clock, new Meters(new DefaultRegistry(), "t"), () -> true);
    try {
      p.fill(2);
      Pooled<FakeFactory.Conn> held = p.borrow(SECONDS.toNanos(1));
      Pooled<FakeFactory.Conn> idle = p.borrow(SECONDS.toNanos(1));
      p.release(idle);

      p.abandonBorrowed();

      assertThat(held.connection().abandoned)
          .as("the call waiting on it fails now")
          .isTrue();
      assertThat(idle.connection().abandoned).as("nobody waits on an idle one").isFalse();
      p.release(held);
    } finally {
      p.close();
    }
  }

  @Test
  @Timeout(30)
  void aWaitBegunWhileTheNodeWasOutOfRotationTakesItsWholeTime() throws Exception {
    pool.fill(1);
    Pooled<FakeFactory.Conn> held = pool.borrow(SECONDS.toNanos(1));
    inRotation = false; // the call's last resort: it waits on the node all the same
    CompletableFuture<Pooled<FakeFactory.Conn>> second =
        FakePools.waitingBorrow(pool, HOURS.toNanos(1));

    clock.advance(Duration.ofHours(1));

    Throwable t = catchThrowable(() -> second.get(10, SECONDS)).getCause();
    assertThat(t).isInstanceOf(PoolTimeoutException.class);
    pool.release(held);
  }
}
