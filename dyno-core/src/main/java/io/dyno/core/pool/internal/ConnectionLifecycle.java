package io.dyno.core.pool.internal;

import io.dyno.core.DynoConnectionException;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.engine.internal.NodeConnection;
import io.dyno.core.engine.internal.NodeConnectionFactory;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.time.Ticker;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens and closes one node's connections for its {@link NodePool}, and tells the metrics and the
 * health tracker about each. Opens run on the I/O executor, never in a borrowing thread, except the
 * first connection of a node that never had one (see {@link #openInCaller}). The pool's size stays
 * within {@code maxConnsPerHost}: opens in flight are counted in {@link #pending()}.
 */
final class ConnectionLifecycle<C extends NodeConnection> {
  private static final Logger log = LoggerFactory.getLogger(NodePool.class);

  private final Host host;
  private final Host connectHost;
  private final NodeConnectionFactory<C> factory;
  private final Supplier<DynoConfig> config;
  private final Executor io;
  private final Ticker ticker;
  private final Meters metrics;
  private final NodePool.Events events;
  private final ConcurrentBag<Pooled<C>> bag;
  private final BooleanSupplier draining;
  private final AtomicInteger pending = new AtomicInteger();
  private volatile boolean everOpened;
  private volatile Throwable lastConnectFailure;

  ConnectionLifecycle(
      Host host,
      Host connectHost,
      NodeConnectionFactory<C> factory,
      Supplier<DynoConfig> config,
      Executor io,
      Ticker ticker,
      Meters metrics,
      NodePool.Events events,
      ConcurrentBag<Pooled<C>> bag,
      BooleanSupplier draining) {
    this.host = host;
    this.connectHost = connectHost;
    this.factory = factory;
    this.config = config;
    this.io = io;
    this.ticker = ticker;
    this.metrics = metrics;
    this.events = events;
    this.bag = bag;
    this.draining = draining;
  }

  /** {@return true once any connection to the node was opened} */
  boolean everOpened() {
    return everOpened;
  }

  /** {@return why the latest open failed, or null when the latest open succeeded (or none ran)} */
  Throwable lastConnectFailure() {
    return lastConnectFailure;
  }

  /** {@return opens started in the background and not finished yet} */
  int pending() {
    return pending.get();
  }

  /**
   * Opens a connection in the calling thread and adds it to the bag as borrowed. Only for a node
   * that never had a connection, so its first request does not wait for the background; the connect
   * timeout is cut to the caller's remaining time.
   *
   * @throws DynoConnectionException (kind CONNECTION) when the node cannot be connected to
   */
  Pooled<C> openInCaller(long timeoutNanos) {
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

  private static final long NOT_CONNECTING = Long.MIN_VALUE;

  /** When a background connect still running began (ticker nanos), or {@link #NOT_CONNECTING}. */
  private final AtomicLong connectingSince = new AtomicLong(NOT_CONNECTING);

  /**
   * How long a background connect has been running without an answer (ticker nanos; 0: none is):
   * a node that completes no TCP handshake for longer than {@code silentNodeAfter} is silent.
   */
  long connectingFor() {
    long since = connectingSince.get();
    return since == NOT_CONNECTING ? 0 : Math.max(0, ticker.nanoTime() - since);
  }

  /** Starts background opens for {@code waiting} borrowers, within the pool's max. */
  void openForWaiters(int waiting) {
    if (draining.getAsBoolean()) {
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

  /** Starts background opens until size + pending reaches {@code min} (a failed open is not retried here). */
  void fill(int min) {
    int need = min - bag.size() - pending.get();
    for (int i = 0; i < need && !draining.getAsBoolean(); i++) {
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

  private void openInBackground() {
    long started = ticker.nanoTime();
    connectingSince.compareAndSet(NOT_CONNECTING, started);
    try {
      if (draining.getAsBoolean()) {
        return;
      }
      DynoConfig cfg = config.get();
      C c;
      try {
        c = factory.open(connectHost, cfg.connectTimeout(), cfg.socketTimeout());
      } catch (Throwable t) {
        connectFailed(t);
        return;
      } finally {
        connectingSince.compareAndSet(started, NOT_CONNECTING);
      }
      if (draining.getAsBoolean()) {
        c.close();
        return;
      }
      connected();
      bag.add(new Pooled<>(c, ticker.nanoTime(), cfg.socketTimeout()));
    } finally {
      pending.decrementAndGet();
    }
  }

  /**
   * See {@link NodePool#probe()}. Only the second of two pings is timed: a steered node's probe is
   * compared with one request's round trip on a warm connection (re-admission times the whole
   * probe). The connect is bounded by {@code silentNodeAfter} as well: a probe
   * slower than that does not count as good, and a blackholed node would otherwise hold each probe
   * for the whole connect timeout, delaying its return by as much after the fault ends.
   */
  long probe() {
    DynoConfig cfg = config.get();
    Duration connectBound = cfg.connectTimeout();
    if (cfg.silentNodeAfter().compareTo(connectBound) < 0) {
      connectBound = cfg.silentNodeAfter();
    }
    C c;
    try {
      c = factory.open(connectHost, connectBound, cfg.socketTimeout());
    } catch (Throwable t) {
      connectFailed(t);
      return -1;
    }
    long took;
    try {
      // A fresh connection's first request pays for the server's (and any proxy's) new-connection
      // work; the second is the round trip a call on a pooled connection sees.
      c.ping();
      long start = ticker.nanoTime();
      c.ping();
      took = Math.max(0, ticker.nanoTime() - start);
    } catch (Throwable t) {
      c.close();
      return -1;
    }
    connected();
    if (!draining.getAsBoolean() && bag.size() < cfg.maxConnsPerHost()) {
      bag.add(new Pooled<>(c, ticker.nanoTime(), cfg.socketTimeout()));
    } else {
      c.close();
    }
    return took;
  }

  /** A connection in the pool stopped answering: the health tracker counts it like a failed connect. */
  void connectionLost(Throwable cause) {
    events.connectFailed(host, cause);
  }

  /** Closes a connection already removed from the bag; a failing close is only logged. */
  void close(Pooled<C> p, String reason) {
    try {
      p.connection.close();
    } catch (RuntimeException e) {
      log.debug("closing a connection to {} failed: {}", host, e.toString());
    }
    metrics.connectionClosed(host, reason);
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
}
