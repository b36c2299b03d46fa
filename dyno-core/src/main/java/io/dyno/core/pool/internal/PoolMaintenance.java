package io.dyno.core.pool.internal;

import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.engine.internal.NodeConnection;
import io.dyno.core.time.Ticker;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node pool's periodic upkeep, run on the engine's scheduler thread, which must never block:
 * evicts broken and long-idle connections, shrinks to the max, starts keep-alive pings on the I/O
 * executor and opens connections up to the minimum.
 *
 * <p>The request path only flags a returned connection as used; a pass turns the flag into the
 * connection's last-use time. That keeps clock reads off the request path, at the price of idle
 * eviction happening up to one pass late, never early.
 */
final class PoolMaintenance<C extends NodeConnection> {
  private static final Logger log = LoggerFactory.getLogger(NodePool.class);

  private final Host host;
  private final Supplier<DynoConfig> config;
  private final Executor io;
  private final Ticker ticker;
  private final ConcurrentBag<Pooled<C>> bag;
  private final ConnectionLifecycle<C> lifecycle;

  PoolMaintenance(
      Host host,
      Supplier<DynoConfig> config,
      Executor io,
      Ticker ticker,
      ConcurrentBag<Pooled<C>> bag,
      ConnectionLifecycle<C> lifecycle) {
    this.host = host;
    this.config = config;
    this.io = io;
    this.ticker = ticker;
    this.bag = bag;
    this.lifecycle = lifecycle;
  }

  void run() {
    DynoConfig cfg = config.get();
    long now = ticker.nanoTime();
    long idleNanos = cfg.idleTimeout().toNanos();
    long keepAliveNanos = cfg.keepAliveInterval().toNanos();
    int size = bag.size();
    for (Pooled<C> p : bag.values()) {
      // State first (a volatile read): release() sets the used flag before it frees the entry.
      int state = p.state();
      if (p.used) {
        p.used = false;
        p.lastUsedNanos = now;
      }
      if (state != ConcurrentBag.Entry.FREE) {
        continue;
      }
      long idle = now - p.lastUsedNanos;
      if (p.connection.isBroken()) {
        if (bag.reserve(p) && bag.remove(p)) {
          lifecycle.close(p, "broken");
          size--;
        }
      } else if (size > cfg.maxConnsPerHost()
          || (size > cfg.minConnsPerHost() && idle >= idleNanos)) {
        if (bag.reserve(p) && bag.remove(p)) {
          lifecycle.close(p, size > cfg.maxConnsPerHost() ? "shrink" : "idle");
          size--;
        }
      } else if (now - Math.max(p.lastUsedNanos, p.lastValidatedNanos) >= keepAliveNanos
          && bag.reserve(p)) {
        try {
          io.execute(() -> keepAlive(p));
        } catch (RejectedExecutionException e) {
          bag.unreserve(p);
        }
      }
    }
    lifecycle.fill(cfg.minConnsPerHost());
  }

  private void keepAlive(Pooled<C> p) {
    try {
      p.connection.ping();
      p.lastValidatedNanos = ticker.nanoTime();
      bag.unreserve(p);
    } catch (Throwable t) {
      log.debug("keep-alive ping to {} failed: {}", host, t.toString());
      if (bag.remove(p)) {
        lifecycle.close(p, "keepalive");
      }
      lifecycle.connectionLost(t);
    }
  }
}
