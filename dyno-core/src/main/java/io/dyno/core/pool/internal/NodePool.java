package io.dyno.core.pool.internal;

import io.dyno.core.DynoConnectionException;
import io.dyno.core.DynoException;
import io.dyno.core.Host;
import io.dyno.core.PoolTimeoutException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.metrics.internal.BorrowDelay;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.spi.FailureKind;
import io.dyno.core.spi.NodeConnection;
import io.dyno.core.spi.NodeConnectionFactory;
import io.dyno.core.time.Ticker;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connections to one node, between {@code minConnsPerHost} and {@code maxConnsPerHost}
 * (read live from the config supplier), on a {@link ConcurrentBag}.
 *
 * <p>Growth: a borrower that finds no free connection asks for one, and it is opened on the I/O
 * executor, never in the waiting thread. The single exception is a brand-new node whose pool has
 * never had a connection: one caller opens the first connection itself, bounded by the connect
 * timeout (and its own deadline), so the first request does not wait for the background.
 * Shrinking, keep-alive pings and filling up to the minimum happen in {@link #maintain()}, which
 * the engine runs on its scheduler; pings themselves run on the I/O executor.
 *
 * <p>A broken connection (the driver says {@link NodeConnection#isBroken()}, or the executor
 * discards it after an I/O error or timeout) is removed and closed, never handed out again.
 * {@link #drain()} stops new borrows, closes idle connections at once and the borrowed ones when
 * they come back.
 */
public final class NodePool<C extends NodeConnection> implements ConcurrentBag.Listener {
  private static final Logger log = LoggerFactory.getLogger(NodePool.class);

  /** Told about connect outcomes (the engine's health tracker listens). */
  public interface Events {
    void connectFailed(Host host, Throwable cause);

    void connected(Host host);
  }

  private final Host host;
  private final Host connectHost;
  private final NodeConnectionFactory<C> factory;
  private final Supplier<DynoConfig> config;
  private final Executor io;
  private final Ticker ticker;
  private final Meters metrics;
  private final Events events;
  private final BorrowDelay borrowDelay;
  private final ConcurrentBag<Pooled<C>> bag;
  private final AtomicInteger pending = new AtomicInteger();
  private final AtomicBoolean callerOpening = new AtomicBoolean();
  private final AtomicBoolean closedOnce = new AtomicBoolean();
  private volatile boolean everOpened;
  private volatile boolean draining;
  private volatile Throwable lastConnectFailure;

  /**
   * @param host the node as the topology knows it (identity, metrics)
   * @param connectHost where to connect (the same node, or its datastore port in datastore mode)
   */
  public NodePool(
      Host host,
      Host connectHost,
      NodeConnectionFactory<C> factory,
      Supplier<DynoConfig> config,
      Executor io,
      Ticker ticker,
      Meters metrics,
      Events events) {
    this.host = host;
    this.connectHost = connectHost;
    this.factory = factory;
    this.config = config;
    this.io = io;
    this.ticker = ticker;
    this.bag = new ConcurrentBag<>(this, ticker);
    this.metrics = metrics;
    this.events = events;
    this.borrowDelay = metrics.borrowDelay(host, bag::immediateBorrows);
  }

  /** Where its connections go: the node itself, or its Redis in datastore mode. */
  public Host connectHost() {
    return connectHost;
  }

  public Host host() {
    return host;
  }

  /**
   * Borrows a connection, waiting at most {@code timeoutNanos} on the pool's ticker. Every call is
   * recorded in the borrow-delay timer: one that found a free connection at once is only counted
   * (it did not wait, and reading the clock would cost more than the borrow); one that had to wait
   * or failed is timed. Throws {@link PoolTimeoutException} when none came free in time, and
   * {@link DynoConnectionException} (kind CONNECTION) when the node cannot be connected to or is
   * being drained; in both cases the command was not sent.
   */
  public Pooled<C> borrow(long timeoutNanos) {
    if (!draining) {
      Pooled<C> p = bag.borrowNow(); // counted by the bag as a borrow that did not wait
      if (p != null) {
        if (!p.connection.isBroken()) {
          return p;
        }
        bag.uncountImmediate(); // timed below instead
        discard(p, "broken");
      }
    }
    long start = ticker.nanoTime();
    try {
      return borrowWaiting(start, timeoutNanos);
    } finally {
      borrowDelay.waited(ticker.nanoTime() - start);
    }
  }

  private Pooled<C> borrowWaiting(long start, long timeoutNanos) {
    try {
      if (draining) {
        throw new DynoConnectionException(
            "node " + host + " is leaving the topology; its pool is draining",
            host,
            FailureKind.CONNECTION,
            null);
      }
      long deadline = ticker.nanoTime() + timeoutNanos;
      while (true) {
        Pooled<C> p = null;
        if (!everOpened
            && lastConnectFailure == null
            && bag.size() == 0
            && callerOpening.compareAndSet(false, true)) {
          try {
            p = openInCaller(timeoutNanos);
          } finally {
            callerOpening.set(false);
          }
        } else {
          Throwable failure = lastConnectFailure;
          if (failure != null && bag.size() == 0 && pending.get() == 0) {
            addItem(
                1); // try again in the background; fail this caller fast instead of letting it wait
            throw new DynoConnectionException(
                "cannot connect to " + host + ": " + failure,
                host,
                FailureKind.CONNECTION,
                failure);
          }
          long left = deadline - ticker.nanoTime();
          p = left > 0 ? bag.borrow(left) : null;
          if (p == null) {
            failure = lastConnectFailure;
            if (failure != null && bag.size() == 0) {
              throw new DynoConnectionException(
                  "cannot connect to " + host + ": " + failure,
                  host,
                  FailureKind.CONNECTION,
                  failure);
            }
            metrics.borrowTimeout(host);
            throw new PoolTimeoutException(
                host,
                bag.waiters() + 1,
                ticker.nanoTime() - start,
                bag.size(),
                bag.count(ConcurrentBag.Entry.IN_USE),
                config.get().maxConnsPerHost());
          }
        }
        if (p.connection.isBroken()) {
          discard(p, "broken");
          continue;
        }
        return p;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DynoException("interrupted while waiting for a connection to " + host, e);
    }
  }

  /** Publishes the borrow delays counted since the last call into the Spectator timer (maintenance does this). */
  public void publishMetrics() {
    borrowDelay.publish();
  }

  private Pooled<C> openInCaller(long timeoutNanos) {
    DynoConfig cfg = config.get();
    Duration connect = cfg.connectTimeout();
    if (timeoutNanos < connect.toNanos()) {
      connect = Duration.ofNanos(Math.max(1_000_000, timeoutNanos));
    }
    C c;
    try {
      c = factory.open(connectHost, connect, cfg.socketTimeout());
    } catch (Throwable t) {
      connectFailed(t);
      throw new DynoConnectionException(
          "cannot connect to " + host + ": " + t, host, FailureKind.CONNECTION, t);
    }
    Pooled<C> p = new Pooled<>(c, ticker.nanoTime(), cfg.socketTimeout());
    connected();
    bag.addInUse(p);
    return p;
  }

  /** Returns a healthy connection to the pool (closing it instead if the pool is over its max or draining). */
  public void release(Pooled<C> p) {
    if (!p.used) {
      p.used = true; // maintain() turns this into lastUsedNanos: no clock read on the request path
    }
    if (draining) {
      discard(p, "drained");
    } else if (p.connection.isBroken()) {
      discard(p, "broken");
    } else if (bag.size() > config.get().maxConnsPerHost()) {
      discard(p, "shrink");
    } else {
      bag.requite(p);
    }
  }

  /** Removes and closes a borrowed connection that must not be used again; replaces it if callers wait. */
  public void discard(Pooled<C> p, String reason) {
    if (bag.remove(p)) {
      closeQuietly(p, reason);
    }
    if (!draining) {
      int waiting = bag.waiters();
      if (waiting > 0) {
        addItem(waiting);
      }
    }
  }

  /** Bag listener: open connections in the background for {@code waiting} borrowers, within the max. */
  @Override
  public void addItem(int waiting) {
    if (draining) {
      return;
    }
    int max = config.get().maxConnsPerHost();
    while (true) {
      int p = pending.get();
      if (bag.size() + p >= max || p >= waiting) {
        return;
      }
      if (pending.compareAndSet(p, p + 1)) {
        break;
      }
    }
    try {
      io.execute(this::openInBackground);
    } catch (RejectedExecutionException e) {
      pending.decrementAndGet();
    }
  }

  private void openInBackground() {
    try {
      if (draining) {
        return;
      }
      DynoConfig cfg = config.get();
      C c;
      try {
        c = factory.open(connectHost, cfg.connectTimeout(), cfg.socketTimeout());
      } catch (Throwable t) {
        connectFailed(t);
        return;
      }
      if (draining) {
        c.close();
        return;
      }
      connected();
      bag.add(new Pooled<>(c, ticker.nanoTime(), cfg.socketTimeout()));
    } finally {
      pending.decrementAndGet();
    }
  }

  private void connectFailed(Throwable t) {
    lastConnectFailure = t;
    metrics.connectionFailed(host);
    log.debug("connect to {} failed: {}", host, t.toString());
    events.connectFailed(host, t);
  }

  private void connected() {
    everOpened = true;
    lastConnectFailure = null;
    metrics.connectionCreated(host);
    events.connected(host);
  }

  /**
   * Health probe, run on an I/O thread: opens a fresh connection and pings it. On success the
   * connection joins the pool (if there is room). True when the node answered.
   */
  public boolean probe() {
    DynoConfig cfg = config.get();
    C c;
    try {
      c = factory.open(connectHost, cfg.connectTimeout(), cfg.socketTimeout());
    } catch (Throwable t) {
      connectFailed(t);
      return false;
    }
    try {
      c.ping();
    } catch (Throwable t) {
      c.close();
      return false;
    }
    connected();
    if (!draining && bag.size() < cfg.maxConnsPerHost()) {
      bag.add(new Pooled<>(c, ticker.nanoTime(), cfg.socketTimeout()));
    } else {
      c.close();
    }
    return true;
  }

  /**
   * One maintenance pass (on the scheduler thread; never blocks): drop broken and long-idle
   * connections above the minimum, shrink to the max, start keep-alive pings on the I/O executor,
   * and open connections up to the minimum. Also publishes the borrow delays counted since the last
   * pass. A connection's last use is the time of the first pass after it was returned (the request
   * path only sets a flag), so idle eviction happens up to one pass late, never early.
   */
  public void maintain() {
    borrowDelay.publish();
    if (draining) {
      return;
    }
    DynoConfig cfg = config.get();
    long now = ticker.nanoTime();
    long idleNanos = cfg.idleTimeout().toNanos();
    long keepAliveNanos = cfg.keepAliveInterval().toNanos();
    int size = bag.size();
    for (Pooled<C> p : bag.values()) {
      int state =
          p.state(); // volatile read first: release() sets the flag before it frees the entry
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
          closeQuietly(p, "broken");
          size--;
        }
      } else if (size > cfg.maxConnsPerHost()
          || (size > cfg.minConnsPerHost() && idle >= idleNanos)) {
        if (bag.reserve(p) && bag.remove(p)) {
          closeQuietly(p, size > cfg.maxConnsPerHost() ? "shrink" : "idle");
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
    fill(cfg.minConnsPerHost());
  }

  private void keepAlive(Pooled<C> p) {
    try {
      p.connection.ping();
      p.lastValidatedNanos = ticker.nanoTime();
      bag.unreserve(p);
    } catch (Throwable t) {
      log.debug("keep-alive ping to {} failed: {}", host, t.toString());
      if (bag.remove(p)) {
        closeQuietly(p, "keepalive");
      }
      events.connectFailed(host, t);
    }
  }

  /** Starts background opens until size + pending reaches {@code min} (one round: a failed open is not retried here). */
  public void fill(int min) {
    int need = min - bag.size() - pending.get();
    for (int i = 0; i < need && !draining; i++) {
      int p = pending.get();
      if (bag.size() + p >= min) {
        return;
      }
      if (pending.compareAndSet(p, p + 1)) {
        try {
          io.execute(this::openInBackground);
        } catch (RejectedExecutionException e) {
          pending.decrementAndGet();
          return;
        }
      }
    }
  }

  /** Stops new borrows; closes idle connections now and borrowed ones when returned. */
  public void drain() {
    draining = true;
    borrowDelay.publish();
    for (Pooled<C> p : bag.values()) {
      if (bag.reserve(p) && bag.remove(p)) {
        closeQuietly(p, "drained");
      }
    }
  }

  /** Closes every connection, borrowed or not (after {@link #drain()} had its chance). Idempotent. */
  public void close() {
    draining = true;
    if (!closedOnce.compareAndSet(false, true)) {
      return;
    }
    borrowDelay.publish();
    for (Pooled<C> p : bag.values()) {
      if ((bag.reserve(p) || p.state() == ConcurrentBag.Entry.IN_USE) && bag.remove(p)) {
        closeQuietly(p, "closed");
      }
    }
  }

  public boolean isDraining() {
    return draining;
  }

  private void closeQuietly(Pooled<C> p, String reason) {
    try {
      p.connection.close();
    } catch (RuntimeException e) {
      log.debug("closing a connection to {} failed: {}", host, e.toString());
    }
    metrics.connectionClosed(host, reason);
  }

  public int size() {
    return bag.size();
  }

  public int active() {
    return bag.count(ConcurrentBag.Entry.IN_USE);
  }

  public int idle() {
    return bag.count(ConcurrentBag.Entry.FREE);
  }

  public int waiters() {
    return bag.waiters();
  }

  public int pending() {
    return pending.get();
  }

  @Override
  public String toString() {
    return host.id() + " size=" + size() + " active=" + active() + " idle=" + idle() + " waiters="
        + waiters() + " pending=" + pending() + (draining ? " draining" : "");
  }
}
