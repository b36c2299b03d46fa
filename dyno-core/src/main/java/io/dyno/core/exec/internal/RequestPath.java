package io.dyno.core.exec.internal;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.config.RemoteDatacenterFallback;
import io.dyno.core.events.CallListener;
import io.dyno.core.exec.AsyncOperation;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.exec.Operation;
import io.dyno.core.exec.Sleeper;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.internal.KeyText;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.routing.internal.DivergedKeys;
import io.dyno.core.spi.FailureReport;
import io.dyno.core.spi.NodeConnection;
import io.dyno.core.spi.NodeConnectionFactory;
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
  private final boolean datastoreMode;
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
      boolean datastoreMode,
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
    this.datastoreMode = datastoreMode;
    this.closed = closed;
    this.deciding = new CallDecider.Context(
        health, random, metrics, new DivergedKeys(config.get().divergedKeyLimit()));
  }

  /**
   * Runs {@code op} on {@code candidates} (in preference order) within the options' deadline.
   * {@code key}: what the candidates were routed by, for the call's listener (null: none named).
   * Never hedged: see {@link #runRead}.
   */
  <R> R run(
      String command,
      Object key,
      List<Host> candidates,
      boolean idempotent,
      CallOptions options,
      Operation<C, R> op) {
    return this.<R>start(command, key, candidates, idempotent, false, options, null)
        .run(op);
  }

  /**
   * As {@link #run}, for a read, which may be hedged. A hedged read is the asynchronous call waited
   * on, its attempts on {@link #attemptThreads} (one thread cannot read two replies at once); an
   * unhedged one is {@link #run}. (Apart from {@link #run}, so that the call that is never hedged
   * keeps its short path.)
   */
  <R> R runRead(
      String command,
      Object key,
      List<Host> candidates,
      boolean idempotent,
      CallOptions options,
      Operation<C, R> op) {
    if (hedging(options, candidates) == null) {
      return this.<R>start(command, key, candidates, idempotent, true, options, null)
          .run(op);
    }
    AsyncOperation<C, R> blocking = c -> CompletableFuture.completedFuture(op.run(c));
    return AsyncCall.await(
        command, runAsync(command, key, candidates, idempotent, true, options, blocking, true));
  }

  /**
   * Starts {@code op} as an asynchronous call ({@link AsyncCall}); every failure, those of starting
   * included, completes the future rather than throwing. {@code read}: may be hedged.
   */
  <R> CompletableFuture<R> runAsync(
      String command,
      Object key,
      List<Host> candidates,
      boolean idempotent,
      boolean read,
      CallOptions options,
      AsyncOperation<C, R> op) {
    return runAsync(command, key, candidates, idempotent, read, options, op, blockingTransport);
  }

  /** As {@link #runAsync}; {@code opBlocks}: {@code op} returns only once its reply is in. */
  private <R> CompletableFuture<R> runAsync(
      String command,
      Object key,
      List<Host> candidates,
      boolean idempotent,
      boolean read,
      CallOptions options,
      AsyncOperation<C, R> op,
      boolean opBlocks) {
    try {
      checkOpen(command, candidates);
      DynoConfig cfg = config.get();
      candidates = regional(command, key, candidates, read, idempotent, cfg);
      CallOptions o = options == null ? CallOptions.defaults() : options;
      ConsistencyLevel level = level(command, o, cfg);
      HedgePolicy hedge = read ? hedging(o, candidates) : null;
      long now = ticker.nanoTime();
      CallDecider decider = decider(command, key, candidates, idempotent, o, cfg, hedge, null, now);
      return new AsyncCall<>(
              this,
              decider,
              level,
              op,
              CallEvents.start(listeners, command, key, decider.candidates(), level),
              hedge != null && opBlocks)
          .start();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * The hedging of a read with these options on these candidates: the options', else the client's;
   * null when it is off or there is no other node to hedge to.
   */
  private HedgePolicy hedging(CallOptions options, List<Host> candidates) {
    if (candidates == null || candidates.size() < 2) {
      return null;
    }
    HedgePolicy h = options != null && options.hedging() != null
        ? options.hedging()
        : config.get().hedgeReads();
    return h != null && h.enabled() ? h : null;
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
   * A call ready to run. {@code deadline} (null: the options') is the deadline of a scattered call
   * as a whole, which its parts share.
   */
  <R> Call<C, R> start(
      String command,
      List<Host> candidates,
      boolean idempotent,
      CallOptions options,
      Deadline deadline) {
    return start(command, null, candidates, idempotent, false, options, deadline);
  }

  private <R> Call<C, R> start(
      String command,
      Object key,
      List<Host> candidates,
      boolean idempotent,
      boolean read,
      CallOptions options,
      Deadline deadline) {
    checkOpen(command, candidates);
    DynoConfig cfg = config.get();
    candidates = regional(command, key, candidates, read, idempotent, cfg);
    CallOptions o = options == null ? CallOptions.defaults() : options;
    ConsistencyLevel level = level(command, o, cfg);
    long now = ticker.nanoTime();
    CallDecider decider =
        decider(command, key, candidates, idempotent, o, cfg, null, deadline, now);
    return new Call<>(
        this,
        decider,
        level,
        CallEvents.start(listeners, command, key, decider.candidates(), level));
  }

  /** The deadline of a call starting {@code now} with these options (for a scattered call, shared by its parts). */
  Deadline deadline(CallOptions options, long now) {
    return Deadline.after(
        deadline(options == null ? CallOptions.defaults() : options, config.get()), ticker, now);
  }

  /** One call's decision machine, its rules settled as it starts. */
  private CallDecider decider(
      String command,
      Object key,
      List<Host> candidates,
      boolean idempotent,
      CallOptions o,
      DynoConfig cfg,
      HedgePolicy hedge,
      Deadline shared,
      long now) {
    boolean rerunUnknown = idempotent
        || (o.retryNonIdempotent() != null ? o.retryNonIdempotent() : cfg.retryNonIdempotent());
    Deadline d = shared != null ? shared : Deadline.after(deadline(o, cfg), ticker, now);
    return new CallDecider(
        command, key, candidates, d, idempotent, rerunUnknown, hedge, cfg, deciding, now);
  }

  private void checkOpen(String command, List<Host> candidates) {
    if (closed.get()) {
      throw new IllegalStateException("the Dyno engine is closed; " + command + " was not sent");
    }
    if (candidates == null || candidates.isEmpty()) {
      throw new NoAvailableHostsException(command + ": no candidate nodes were given");
    }
  }

  /**
   * The candidates this call may use: all of them when {@code remoteDatacenterFallback} lets the
   * call leave the local datacenter (or the local datacenter is unknown), else the local
   * datacenter's. When none of those is in rotation, the call fails at once naming the setting.
   */
  private List<Host> regional(
      String command,
      Object key,
      List<Host> candidates,
      boolean read,
      boolean idempotent,
      DynoConfig cfg) {
    RemoteDatacenterFallback fallback = cfg.remoteDatacenterFallback();
    if (fallback.allows(read, idempotent)) {
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
      throw new NoAvailableHostsException(command
          + (key == null ? "" : " " + KeyText.show(key))
          + ": no node of the local datacenter " + local + " is in rotation, and"
          + " remoteDatacenterFallback=" + fallback + " keeps " + (read ? "reads" : "this write")
          + " there (its replicas: " + candidates + ")");
    }
    return candidates.stream().filter(h -> local.equals(h.datacenter())).toList();
  }

  /** The call's consistency level: the options', else the client's default (null: the server's). */
  private ConsistencyLevel level(String command, CallOptions o, DynoConfig cfg) {
    ConsistencyLevel level = o.consistency();
    if (level != null && datastoreMode) {
      throw new IllegalArgumentException(
          command + ": consistency " + level + " was requested, but this client"
              + " runs in datastore mode (straight to each node's Redis), which has no Dynomite consistency;"
              + " drop the consistency option or turn datastoreMode off");
    }
    return level != null ? level : cfg.defaultConsistency();
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
