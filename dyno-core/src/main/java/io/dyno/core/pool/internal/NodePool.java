package io.dyno.core.pool.internal;

import io.dyno.core.DynoConnectionException;
import io.dyno.core.DynoException;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.PoolTimeoutException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.engine.internal.NodeConnection;
import io.dyno.core.engine.internal.NodeConnectionFactory;
import io.dyno.core.metrics.internal.BorrowDelay;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.time.Ticker;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

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
  /** Told about connect outcomes (the engine's health tracker listens). */
  public interface Events {
    void connectFailed(Host host, Throwable cause);

    void connected(Host host);

    /**
     * Whether the node takes traffic: a borrower that began waiting for a connection while it did
     * stops waiting once it does not (the call moves to another replica at once).
     */
    default boolean inRotation(Host host) {
      return true;
    }

    /**
     * A borrower gave up while a connect to the node had been waiting {@code waitedNanos} for the
     * node to answer it (no handshake back: a blackholed or frozen node), at least {@code
     * silentNodeAfter}: as telling as a reply that never came.
     */
    default void connectStalled(Host host, long waitedNanos) {}
  }

  private final Host host;
  private final Host connectHost;
  private final Supplier<DynoConfig> config;
  private final Ticker ticker;
  private final Meters metrics;
  /** Ends a wait for a connection begun while the node took traffic (see {@link #borrowWaiting}). */
  private final BooleanSupplier outOfRotation;

  private final Events events;

  private final BorrowDelay borrowDelay;
  private final ConcurrentBag<Pooled<C>> bag;
  private final ConnectionLifecycle<C> lifecycle;
  private final PoolMaintenance<C> maintenance;
  private final AtomicBoolean callerOpening = new AtomicBoolean();
  private final AtomicBoolean closedOnce = new AtomicBoolean();
  private volatile boolean draining;

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
    this.config = config;
    this.ticker = ticker;
    this.bag = new ConcurrentBag<>(this, ticker);
    this.metrics = metrics;
    this.events = events;
    this.outOfRotation = () -> !events.inRotation(host);
    this.borrowDelay = metrics.borrowDelay(host, bag::immediateBorrows);
    this.lifecycle = new ConnectionLifecycle<>(
        host, connectHost, factory, config, io, ticker, metrics, events, bag, () -> draining);
    this.maintenance = new PoolMaintenance<>(host, config, io, ticker, bag, lifecycle);
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
        if (!lifecycle.everOpened()
            && lifecycle.lastConnectFailure() == null
            && bag.size() == 0
            && callerOpening.compareAndSet(false, true)) {
          try {
            p = lifecycle.openInCaller(timeoutNanos);
          } finally {
            callerOpening.set(false);
          }
        } else {
          Throwable failure = lifecycle.lastConnectFailure();
          if (failure != null && bag.size() == 0 && lifecycle.pending() == 0) {
            // The node refused the last connect: try again in the background, but fail this
            // caller fast instead of letting it wait out its timeout.
            lifecycle.openForWaiters(1);
            throw new DynoConnectionException(
                "cannot connect to " + host + ": " + failure,
                host,
                FailureKind.CONNECTION,
                failure);
          }
          long left = deadline - ticker.nanoTime();
          // A wait begun while the node takes traffic ends when it leaves rotation (a call waiting
          // on a dead node's connect fails over at once); one begun after (the call's last resort)
          // takes its whole time.
          boolean inRotation = !outOfRotation.getAsBoolean();
          p = left > 0 ? bag.borrow(left, inRotation ? outOfRotation : null) : null;
          if (p == null) {
            failure = lifecycle.lastConnectFailure();
            if (inRotation && outOfRotation.getAsBoolean()) {
              throw leftRotation(start, failure);
            }
            if (failure != null && bag.size() == 0) {
              throw new DynoConnectionException(
                  "cannot connect to " + host + ": " + failure,
                  host,
                  FailureKind.CONNECTION,
                  failure);
            }
            metrics.borrowTimeout(host);
            long connecting = lifecycle.connectingFor();
            if (connecting >= config.get().silentNodeAfter().toNanos()) {
              events.connectStalled(host, connecting);
            }
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

  /** The node left rotation while a caller waited for a connection to it: nothing was sent. */
  private DynoConnectionException leftRotation(long start, Throwable connectFailure) {
    String why = "node " + host + " left rotation while this call waited "
        + (ticker.nanoTime() - start) / 1_000_000 + " ms for a connection to it";
    // The cause marks the node as failing (not merely busy): a non-idempotent write stays in its
    // rack.
    Throwable cause = connectFailure != null ? connectFailure : new DynoException(why);
    return new DynoConnectionException(why, host, FailureKind.CONNECTION, cause);
  }

  /** Publishes the borrow delays counted since the last call into the Spectator timer (maintenance does this). */
  public void publishMetrics() {
    borrowDelay.publish();
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
      lifecycle.close(p, reason);
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
    lifecycle.openForWaiters(waiting);
  }

  /**
   * Health probe, run on an I/O thread: opens a fresh connection and pings it twice. On success
   * the connection joins the pool (if there is room). The second ping's round trip (ticker nanos),
   * or -1 when the node did not answer.
   */
  public long probe() {
    return lifecycle.probe();
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
    if (!draining) {
      maintenance.run();
    }
  }

  /** Starts background opens until size + pending reaches {@code min} (one round: a failed open is not retried here). */
  public void fill(int min) {
    lifecycle.fill(min);
  }

  /** Stops new borrows; closes idle connections now and borrowed ones when returned. */
  public void drain() {
    draining = true;
    borrowDelay.publish();
    for (Pooled<C> p : bag.values()) {
      if (bag.reserve(p) && bag.remove(p)) {
        lifecycle.close(p, "drained");
      }
    }
  }

  /**
   * The node was found silent: every borrowed connection is abandoned ({@link
   * NodeConnection#abandon()}), so the calls waiting on them fail over now. Idle ones stay: nothing
   * borrows them while the node is out of rotation, and a broken one is dropped when next checked.
   */
  public void abandonBorrowed() {
    for (Pooled<C> p : bag.values()) {
      if (p.state() == ConcurrentBag.Entry.IN_USE) {
        p.connection.abandon();
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
        lifecycle.close(p, "closed");
      }
    }
  }

  public boolean isDraining() {
    return draining;
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
    return lifecycle.pending();
  }

  @Override
  public String toString() {
    return host.id() + " size=" + size() + " active=" + active() + " idle=" + idle() + " waiters="
        + waiters() + " pending=" + pending() + (draining ? " draining" : "");
  }
}
