package io.dyno.core.pool;

import static org.awaitility.Awaitility.await;

import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.exec.FakeFactory;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.pool.internal.NodePool;
import io.dyno.core.pool.internal.Pooled;
import io.dyno.core.time.Ticker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/** A node's pool on the fake driver, as the pool tests build it: connections open on the caller's thread. */
final class FakePools {
  private FakePools() {}

  /** The pool of {@code host}, whose node takes traffic while {@code inRotation} says so. */
  static NodePool<FakeFactory.Conn> pool(
      Host host, DynoConfig config, Ticker ticker, Meters meters, BooleanSupplier inRotation) {
    return new NodePool<>(
        host,
        host,
        new FakeFactory(),
        () -> config,
        Runnable::run,
        ticker,
        meters,
        new NodePool.Events() {
          @Override
          public void connectFailed(Host h, Throwable cause) {}

          @Override
          public void connected(Host h) {}

          @Override
          public boolean inRotation(Host h) {
            return inRotation.getAsBoolean();
          }
        });
  }

  /**
   * A borrow of {@code timeoutNanos} on a thread of its own, returned once it is parked as the
   * pool's one waiter (registered, its deadline read off the pool's clock).
   */
  static CompletableFuture<Pooled<FakeFactory.Conn>> waitingBorrow(
      NodePool<FakeFactory.Conn> pool, long timeoutNanos) {
    CompletableFuture<Pooled<FakeFactory.Conn>> result = new CompletableFuture<>();
    Thread waiter = new Thread(
        () -> {
          try {
            result.complete(pool.borrow(timeoutNanos));
          } catch (RuntimeException e) {
            result.completeExceptionally(e);
          }
        },
        "waiting-borrower");
    waiter.setDaemon(true);
    waiter.start();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> pool.waiters() == 1 && waiter.getState() == Thread.State.TIMED_WAITING);
    return result;
  }
}
