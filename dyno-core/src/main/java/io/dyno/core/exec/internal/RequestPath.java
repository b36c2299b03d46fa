package io.dyno.core.exec.internal;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.Host;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.events.CallListener;
import io.dyno.core.exec.AsyncOperation;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.exec.Operation;
import io.dyno.core.exec.Sleeper;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.spi.FailureKind;
import io.dyno.core.spi.NodeConnection;
import io.dyno.core.spi.NodeConnectionFactory;
import io.dyno.core.time.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * What every {@link Call} shares: configuration, clocks, pools, node health, metrics. Starting a
 * call settles the per-call rules once (consistency, whether a sent command may be re-run, the
 * deadline); the {@link Call} then walks the stages.
 */
final class RequestPath<C extends NodeConnection> {
  final Supplier<DynoConfig> config;
  final Ticker ticker;
  final Sleeper sleeper;
  final DoubleSupplier random;
  final Meters metrics;
  final HealthTracker health;
  final PoolRegistry<C> pools;
  /** Asynchronous calls: where their blocking steps run after the first attempt, and their timers. */
  final java.util.concurrent.Executor io;
  final io.dyno.core.time.Scheduler scheduler;
  final RecentLatencies latencies;
  /** Asynchronous calls waiting for a backoff or a thread: ended by {@link #failWaiting} when the engine closes. */
  final java.util.Set<AsyncCall<?, ?>> waiting = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final NodeConnectionFactory<C> factory;
  private final boolean datastoreMode;
  private final AtomicBoolean closed;
  private final CallListener.Factory listeners; // null: none, checked once per call

  RequestPath(Supplier<DynoConfig> config, Ticker ticker, Sleeper sleeper, DoubleSupplier random, Meters metrics,
      HealthTracker health, PoolRegistry<C> pools, NodeConnectionFactory<C> factory, boolean datastoreMode,
      AtomicBoolean closed, java.util.concurrent.Executor io, io.dyno.core.time.Scheduler scheduler,
      CallListener.Factory listeners) {
    this.listeners = listeners;
    this.io = io;
    this.scheduler = scheduler;
    this.latencies = new RecentLatencies(ticker);
    this.config = config;
    this.ticker = ticker;
    this.sleeper = sleeper;
    this.random = random;
    this.metrics = metrics;
    this.health = health;
    this.pools = pools;
    this.factory = factory;
    this.datastoreMode = datastoreMode;
    this.closed = closed;
  }

  /**
   * Runs {@code op} on {@code candidates} (in preference order) within the options' deadline.
   * {@code key}: what the candidates were routed by, for the call's listener (null: none named).
   */
  <R> R run(String command, Object key, List<Host> candidates, boolean idempotent, CallOptions options,
      Operation<C, R> op) {
    return this.<R>start(command, key, candidates, idempotent, options, null).run(op);
  }

  /**
   * Starts {@code op} as an asynchronous call ({@link AsyncCall}); every failure, those of starting
   * included, completes the future rather than throwing. {@code read}: may be hedged.
   */
  <R> CompletableFuture<R> runAsync(String command, Object key, List<Host> candidates, boolean idempotent,
      boolean read, CallOptions options, AsyncOperation<C, R> op) {
    try {
      Rules r = rules(command, candidates, idempotent, options, null);
      HedgePolicy hedge = !read ? null : r.options.hedging() != null ? r.options.hedging() : r.cfg.hedgeReads();
      return new AsyncCall<>(this, r.cfg, command, candidates, r.level, r.rerunUnknown, hedge, r.startNanos,
          r.deadlineAt, r.deadline, op, CallEvents.start(listeners, command, key, candidates)).start();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Ends the asynchronous calls left waiting when the engine closed (their timers and queued steps are gone). */
  void failWaiting() {
    for (AsyncCall<?, ?> c : waiting) {
      waiting.remove(c);
      c.engineClosed();
    }
  }

  /** The driver says the current thread must not block (one of its I/O threads). */
  boolean onTransportThread() {
    try {
      return factory.onTransportThread();
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * A call ready to run. {@code deadlineAt} (ticker time) overrides the options' deadline: the
   * parts of one scattered call share the deadline of the whole.
   */
  <R> Call<C, R> start(String command, List<Host> candidates, boolean idempotent, CallOptions options,
      Long deadlineAt) {
    return start(command, null, candidates, idempotent, options, deadlineAt);
  }

  private <R> Call<C, R> start(String command, Object key, List<Host> candidates, boolean idempotent,
      CallOptions options, Long deadlineAt) {
    Rules r = rules(command, candidates, idempotent, options, deadlineAt);
    return new Call<>(this, r.cfg, command, candidates, r.level, r.rerunUnknown, r.startNanos, r.deadlineAt,
        r.deadline, CallEvents.start(listeners, command, key, candidates));
  }

  /** One call's rules, settled when it starts. */
  private record Rules(DynoConfig cfg, CallOptions options, ConsistencyLevel level, boolean rerunUnknown,
      long startNanos, long deadlineAt, Duration deadline) {}

  private Rules rules(String command, List<Host> candidates, boolean idempotent, CallOptions options,
      Long deadlineAt) {
    if (closed.get()) {
      throw new IllegalStateException("the Dyno engine is closed; " + command + " was not sent");
    }
    if (candidates == null || candidates.isEmpty()) {
      throw new NoAvailableHostsException(command + ": no candidate nodes were given");
    }
    DynoConfig cfg = config.get();
    CallOptions o = options == null ? CallOptions.defaults() : options;
    ConsistencyLevel level = o.consistency();
    if (level != null && datastoreMode) {
      throw new IllegalArgumentException(command + ": consistency " + level + " was requested, but this client"
          + " runs in datastore mode (straight to each node's Redis), which has no Dynomite consistency;"
          + " drop the consistency option or turn datastoreMode off");
    }
    boolean rerunUnknown = idempotent
        || (o.retryNonIdempotent() != null ? o.retryNonIdempotent() : cfg.retryNonIdempotent());
    long now = ticker.nanoTime();
    Duration deadline = deadline(o, cfg);
    long at = deadlineAt != null ? deadlineAt : deadline == null ? Long.MAX_VALUE : now + deadline.toNanos();
    return new Rules(cfg, o, level != null ? level : cfg.defaultConsistency(), rerunUnknown, now, at, deadline);
  }

  /** The call's deadline: the options', else the configured request deadline; null for none. */
  static Duration deadline(CallOptions options, DynoConfig cfg) {
    return options.deadline() != null ? options.deadline() : cfg.requestDeadline();
  }

  /** The driver says the command was refused at capacity, before any of it was sent (a classifier failure: no). */
  boolean refusedUnsent(Throwable t) {
    try {
      return factory.refusedUnsent(t);
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** The driver says a refused-unsent command may go to the same node again (its connection closed first). */
  boolean resendableToSameNode(Throwable t) {
    try {
      return factory.resendableToSameNode(t);
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** The driver's reading of a failure; a classifier that fails or answers null means a broken connection. */
  FailureKind classify(Throwable t) {
    if (t instanceof Error && !(t instanceof AssertionError)) {
      throw (Error) t;
    }
    try {
      FailureKind k = factory.classify(t);
      return k != null ? k : FailureKind.CONNECTION;
    } catch (RuntimeException e) {
      return FailureKind.CONNECTION;
    }
  }
}
