package io.dyno.core.exec.internal;

import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.config.RemoteDatacenterFallback;
import io.dyno.core.engine.internal.AsyncOperation;
import io.dyno.core.engine.internal.CallSpec;
import io.dyno.core.engine.internal.FailureReport;
import io.dyno.core.engine.internal.NodeConnection;
import io.dyno.core.engine.internal.NodeConnectionFactory;
import io.dyno.core.engine.internal.Operation;
import io.dyno.core.engine.internal.Sleeper;
import io.dyno.core.events.CallListener;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.internal.KeyText;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.routing.internal.DivergedKeys;
import io.dyno.core.time.Scheduler;
import io.dyno.core.time.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * What every call shares: configuration, clocks, pools, node health, metrics, the driver. Starting a
 * call settles its rules once (consistency, whether a sent command may be re-run, the deadline,
 * hedging) into its {@link CallDecider}; the {@link Call} or {@link AsyncCall} then carries out
 * the decider's answers.
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
  final Executor io;
  /** Where a hedged read runs its attempts when they hold their thread until the reply. */
  final Executor attemptThreads;
  /** The transport holds an attempt's thread until its reply ({@link NodeConnectionFactory#blocksUntilReply}). */
  final boolean blockingTransport;

  final Scheduler scheduler;
  final RecentLatencies latencies;
  final OpTimers opTimers; // dyno.op, one sample per call
  /** Asynchronous calls waiting for a backoff or a thread: ended by {@link #failWaiting} when the engine closes. */
  final Set<AsyncCall<?, ?>> waiting = ConcurrentHashMap.newKeySet();

  private final NodeConnectionFactory<C> factory;
  private final AtomicBoolean closed;
  private final CallListener.Factory listeners; // null: none, checked once per call
  private final CallDecider.Context deciding;

  RequestPath(
      Supplier<DynoConfig> config,
      Ticker ticker,
      Sleeper sleeper,
      DoubleSupplier random,
      Meters metrics,
      HealthTracker health,
      PoolRegistry<C> pools,
      NodeConnectionFactory<C> factory,
      AtomicBoolean closed,
      Executor io,
      Executor attemptThreads,
      Scheduler scheduler,
      CallListener.Factory listeners) {
    this.listeners = listeners;
    this.io = io;
    this.attemptThreads = attemptThreads;
    this.blockingTransport = blocksUntilReply(factory);
    this.scheduler = scheduler;
    this.latencies = new RecentLatencies(ticker, health, config);
    this.opTimers = new OpTimers(metrics);
    this.config = config;
    this.ticker = ticker;
    this.sleeper = sleeper;
    this.random = random;
    this.metrics = metrics;
    this.health = health;
    this.pools = pools;
    this.factory = factory;
    this.closed = closed;
    this.deciding = new CallDecider.Context(
        health, random, metrics, new DivergedKeys(config.get().divergedKeyLimit()));
  }

  /**
   * Runs {@code op} for {@code call} (its candidates set) within its options' deadline, blocking the
   * caller: the one place a call is carried out on the caller's thread ({@link Call}) or, when it
   * is hedged ({@link CallSpec#hedgeOn}), as the asynchronous call waited on, its attempts on
   * {@link #attemptThreads} (one thread cannot read two replies at once).
   */
  <R> R run(CallSpec call, Operation<C, R> op) {
    checkOpen(call);
    DynoConfig cfg = config.get();
    List<Host> candidates = regional(call, cfg);
    HedgePolicy hedge = call.hedgeOn(candidates);
    if (hedge == null) {
      return this.<R>start(call, candidates, cfg, null).run(op);
    }
    AsyncOperation<C, R> blocking = c -> CompletableFuture.completedFuture(op.run(c));
    return AsyncCall.await(
        call.command(), startAsync(call, candidates, cfg, hedge, blocking, true));
  }

  /**
   * Starts {@code op} for {@code call} (its candidates set) as an asynchronous call
   * ({@link AsyncCall}); every failure, those of starting included, completes the future rather
   * than throwing.
   */
  <R> CompletableFuture<R> runAsync(CallSpec call, AsyncOperation<C, R> op) {
    try {
      checkOpen(call);
      DynoConfig cfg = config.get();
      List<Host> candidates = regional(call, cfg);
      return startAsync(call, candidates, cfg, call.hedgeOn(candidates), op, blockingTransport);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The asynchronous call; {@code opBlocks}: {@code op} returns only once its reply is in. */
  private <R> CompletableFuture<R> startAsync(
      CallSpec call,
      List<Host> candidates,
      DynoConfig cfg,
      HedgePolicy hedge,
      AsyncOperation<C, R> op,
      boolean opBlocks) {
    try {
      CallDecider decider = decider(call, candidates, cfg, hedge, null, ticker.nanoTime());
      return new AsyncCall<>(
              this,
              decider,
              call.consistency(),
              op,
              CallEvents.start(
                  listeners, call.command(), call.key(), decider.candidates(), call.consistency()),
              hedge != null && opBlocks)
          .start();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private static boolean blocksUntilReply(NodeConnectionFactory<?> factory) {
    try {
      return factory.blocksUntilReply();
    } catch (RuntimeException e) {
      return false;
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
   * A blocking call of a scattered part, ready to run: {@code deadline} is the deadline of the
   * scatter as a whole, which its parts share. Never hedged.
   */
  <R> Call<C, R> start(CallSpec call, Deadline deadline) {
    checkOpen(call);
    DynoConfig cfg = config.get();
    return start(call, regional(call, cfg), cfg, deadline);
  }

  private <R> Call<C, R> start(
      CallSpec call, List<Host> candidates, DynoConfig cfg, Deadline deadline) {
    CallDecider decider = decider(call, candidates, cfg, null, deadline, ticker.nanoTime());
    return new Call<>(
        this,
        decider,
        call.consistency(),
        CallEvents.start(
            listeners, call.command(), call.key(), decider.candidates(), call.consistency()));
  }

  /** The deadline of a call starting {@code now} with these options (for a scattered call, shared by its parts). */
  Deadline deadline(CallOptions options, long now) {
    return Deadline.after(
        deadline(options == null ? CallOptions.defaults() : options, config.get()), ticker, now);
  }

  /** One call's decision machine, its rules settled as it starts. */
  private CallDecider decider(
      CallSpec call,
      List<Host> candidates,
      DynoConfig cfg,
      HedgePolicy hedge,
      Deadline shared,
      long now) {
    CallOptions o = call.options();
    boolean rerunUnknown = call.idempotent()
        || (o.retryNonIdempotent() != null ? o.retryNonIdempotent() : cfg.retryNonIdempotent());
    Deadline d = shared != null ? shared : Deadline.after(deadline(o, cfg), ticker, now);
    return new CallDecider(call, candidates, d, rerunUnknown, hedge, cfg, deciding, now);
  }

  private void checkOpen(CallSpec call) {
    if (closed.get()) {
      throw new IllegalStateException(
          "the Dyno engine is closed; " + call.command() + " was not sent");
    }
    if (call.candidates() == null || call.candidates().isEmpty()) {
      throw new NoAvailableHostsException(call.command() + ": no candidate nodes were given");
    }
  }

  /**
   * The candidates this call may use: all of them when {@code remoteDatacenterFallback} lets the
   * call leave the local datacenter (or the local datacenter is unknown), else the local
   * datacenter's. When none of those is in rotation, the call fails at once naming the setting.
   */
  private List<Host> regional(CallSpec call, DynoConfig cfg) {
    List<Host> candidates = call.candidates();
    boolean read = call.read();
    RemoteDatacenterFallback fallback = cfg.remoteDatacenterFallback();
    if (fallback.allows(read, call.idempotent())) {
      return candidates;
    }
    String local = pools.current().localDatacenter();
    if (local == null) {
      return candidates;
    }
    int remote = 0;
    boolean localInRotation = false;
    for (Host h : candidates) {
      if (!local.equals(h.datacenter())) {
        remote++;
      } else if (health == null || health.isUp(h)) {
        localInRotation = true;
      }
    }
    if (remote == 0) {
      return candidates;
    }
    if (!localInRotation) {
      throw new NoAvailableHostsException(call.command()
          + (call.key() == null ? "" : " " + KeyText.show(call.key()))
          + ": no node of the local datacenter " + local + " is in rotation, and"
          + " remoteDatacenterFallback=" + fallback + " keeps " + (read ? "reads" : "this write")
          + " there (its replicas: " + candidates + ")");
    }
    return candidates.stream().filter(h -> local.equals(h.datacenter())).toList();
  }

  /** The call's deadline: the options', else the configured request deadline; null for none. */
  static Duration deadline(CallOptions options, DynoConfig cfg) {
    return options.deadline() != null ? options.deadline() : cfg.requestDeadline();
  }

  /**
   * The driver's report of a failed attempt ({@link NodeConnectionFactory#report}); a driver that
   * fails to answer, or answers null, reports a broken connection after sending.
   */
  FailureReport report(Throwable t) {
    if (t instanceof Error && !(t instanceof AssertionError)) {
      throw (Error) t;
    }
    try {
      FailureReport r = factory.report(t);
      return r != null ? r : FailureReport.sent(FailureKind.CONNECTION);
    } catch (RuntimeException e) {
      return FailureReport.sent(FailureKind.CONNECTION);
    }
  }
}
