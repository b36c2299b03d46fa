package io.dyno.core.exec.internal;

import com.netflix.spectator.api.Registry;
import io.dyno.core.Host;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.engine.internal.AsyncOperation;
import io.dyno.core.engine.internal.CallSpec;
import io.dyno.core.engine.internal.DynoEngine;
import io.dyno.core.engine.internal.NodeConnection;
import io.dyno.core.engine.internal.NodeConnectionFactory;
import io.dyno.core.engine.internal.Operation;
import io.dyno.core.engine.internal.ScatterPart;
import io.dyno.core.engine.internal.Sleeper;
import io.dyno.core.events.CallListener;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.health.internal.NodeStates;
import io.dyno.core.internal.KeyText;
import io.dyno.core.metrics.DynoMetrics;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.pool.internal.NodePool;
import io.dyno.core.routing.Topology;
import io.dyno.core.routing.internal.Router;
import io.dyno.core.time.Scheduler;
import io.dyno.core.time.Ticker;
import io.dyno.core.topology.NodeStateSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * The {@link DynoEngine}: wires the parts and owns their lifecycle. Who decides what:
 * <ul>
 *   <li>which nodes may serve a request — {@link Router} (token owners or round robin), asked once
 *       per request through {@link #route}; the caller's plan keeps the answer
 *   <li>one call's next step (run, back off, fail over, hedge, give up) — {@link CallDecider}, alone;
 *       {@link Call} (blocking) and {@link AsyncCall} carry out its answers
 *   <li>several nodes at once — {@link Scatter}
 *   <li>pools per node, following the topology — {@link PoolRegistry}
 *   <li>whether a node is up — {@link HealthTracker}
 *   <li>the snapshot and JMX bean — {@link EngineReport}
 * </ul>
 */
public final class Engine<C extends NodeConnection> implements DynoEngine<C> {
  private final Supplier<DynoConfig> config;
  private final Meters metrics;
  private final Scheduler scheduler;
  private final boolean ownScheduler;
  private final ThreadPoolExecutor ownIo;
  private final AttemptThreads ownAttemptThreads; // null: the caller's I/O executor runs them
  private final Router router;
  private final HealthTracker health;
  private final PoolRegistry<C> pools;
  private final RequestPath<C> path;
  private final EngineReport report;
  private final NodeStates nodeStates; // null: states not read
  private final AtomicBoolean closed = new AtomicBoolean();
  private Scheduler.Cancellable maintenance;

  private Engine(
      NodeConnectionFactory<C> factory,
      Supplier<DynoConfig> config,
      Supplier<Topology> topology,
      Meters metrics,
      Scheduler scheduler,
      Ticker ticker,
      Executor io,
      DoubleSupplier random,
      Sleeper sleeper,
      NodeStateSource states,
      List<CallListener.Factory> listeners) {
    DynoConfig cfg = config.get();
    this.config = config;
    this.metrics = metrics;
    this.ownScheduler = scheduler == null;
    this.scheduler = scheduler != null
        ? scheduler
        : Scheduler.daemon("dyno-" + cfg.applicationName() + "-engine");
    Ticker clock =
        ticker != null ? ticker : (this.scheduler instanceof Ticker t ? t : Ticker.system());
    this.ownIo = io == null ? ioThreads(cfg.applicationName()) : null;
    Executor ioExecutor = io != null ? io : ownIo;
    this.ownAttemptThreads = io == null ? new AttemptThreads(cfg.applicationName()) : null;
    this.router = Router.create(cfg.lbStrategy());
    this.pools = new PoolRegistry<>(
        factory, config, topology, ioExecutor, clock, metrics, cfg.datastoreMode());
    ReplicationCheck<C> replication =
        new ReplicationCheck<>(pools, this::health, clock, cfg.datastoreMode());
    this.health = new HealthTracker(
        config,
        clock,
        this.scheduler,
        ioExecutor,
        h -> {
          long took = replication.applyAsLong(h);
          return took >= 0 && stateReadAtReadmission(h) ? took : -1;
        },
        h -> {
          NodePool<C> silent = pools.poolOf(h);
          if (silent != null) {
            silent.abandonBorrowed();
          }
        },
        metrics);
    pools.health(health);
    this.nodeStates = states == null
        ? null
        : new NodeStates(states, () -> pools.current().hosts(), health, this.scheduler, ioExecutor);
    this.path = new RequestPath<>(
        config,
        clock,
        sleeper != null ? sleeper : Sleeper.system(clock),
        random != null ? random : () -> ThreadLocalRandom.current().nextDouble(),
        metrics,
        health,
        pools,
        factory,
        closed,
        ioExecutor,
        io != null ? io : ownAttemptThreads,
        this.scheduler,
        CallEvents.combine(listeners));
    this.report = new EngineReport(config, pools, health);
  }

  /**
   * A node coming back into rotation has its Dynomite state read again with each good probe, so
   * that it is not let back in on a state learnt before it went away (a returning node put in
   * STANDBY by its warm-up sidecar stays out). Always true: the state gates the node by itself.
   */
  private boolean stateReadAtReadmission(Host h) {
    NodeStates s = nodeStates;
    if (s != null) {
      s.askNow(h);
    }
    return true;
  }

  /**
   * Builds and starts an engine (see {@link DynoEngine.Builder#build()}); {@code listeners} hear
   * every call (none: the calls share a listener-free path).
   */
  public static <C extends NodeConnection> Engine<C> start(
      NodeConnectionFactory<C> factory,
      Supplier<DynoConfig> config,
      Supplier<Topology> topology,
      Meters metrics,
      Scheduler scheduler,
      Ticker ticker,
      Executor io,
      DoubleSupplier random,
      Sleeper sleeper,
      boolean registerMBean,
      NodeStateSource states,
      List<CallListener.Factory> listeners) {
    Engine<C> e = new Engine<>(
        factory, config, topology, metrics, scheduler, ticker, io, random, sleeper, states,
        listeners);
    try {
      e.startUp(registerMBean);
    } catch (RuntimeException ex) {
      e.close();
      throw ex;
    }
    return e;
  }

  private void startUp(boolean registerMBean) {
    DynoConfig cfg = config.get();
    metrics.gauge(metrics.id(DynoMetrics.NODES_DOWN), health, HealthTracker::downCount);
    metrics.gauge(metrics.id(DynoMetrics.NODES_UP), report, EngineReport::nodesUp);
    try {
      pools.current();
    } catch (NoAvailableHostsException noTopologyYet) {
      // served once a topology arrives; start-up below decides whether that may wait
    }
    Duration every = cfg.maintenanceInterval();
    maintenance = scheduler.scheduleAtFixedRate(pools::maintain, every, every);
    if (nodeStates != null) {
      // Before the first call: a fresh client already keeps off a node in STANDBY.
      nodeStates.start(cfg.nodeStatePollInterval(), cfg.connectTimeout());
    }
    if (cfg.failOnStartupIfNoHosts()) {
      pools.awaitFirstConnection(cfg);
    }
    if (registerMBean) {
      report.registerMBean(cfg.applicationName());
    }
  }

  private static ThreadPoolExecutor ioThreads(String app) {
    AtomicInteger n = new AtomicInteger();
    ThreadPoolExecutor e =
        new ThreadPoolExecutor(8, 8, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
          Thread t = new Thread(r, "dyno-" + app + "-io-" + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
    e.allowCoreThreadTimeOut(true);
    return e;
  }

  // ---------------------------------------------------------------- routing: decided once per
  // request

  @Override
  public List<Host> route(byte[] key) {
    Topology t = pools.current();
    return owned(null, router.route(t, key), t, key);
  }

  @Override
  public List<Host> route(String key) {
    Topology t = pools.current();
    return owned(null, router.route(t, key), t, key);
  }

  @Override
  public List<Host> routeKeyless() {
    Topology t = pools.current();
    List<Host> all = router.routeKeyless(t);
    if (all.isEmpty()) {
      throw new NoAvailableHostsException("no node is up (topology version " + t.version() + " has "
          + t.hosts().size() + " nodes)");
    }
    return all;
  }

  /** The topology in force; without one the error names the command. */
  private Topology currentFor(String command) {
    try {
      return pools.current();
    } catch (NoAvailableHostsException e) {
      throw new NoAvailableHostsException(command + ": " + e.getMessage());
    }
  }

  /** The key's candidates, or an error naming the key (and the command, when there is one) when no node owns it. */
  private static List<Host> owned(String command, List<Host> replicas, Topology t, Object key) {
    if (replicas.isEmpty()) {
      throw new NoAvailableHostsException(
          (command == null ? "" : command + ": ") + "no node owns key " + KeyText.show(key)
              + " (topology version " + t.version() + " has " + t.hosts().size() + " nodes)");
    }
    return replicas;
  }

  // ---------------------------------------------------------------- the request path

  @Override
  public CallSpec.Builder call(String command) {
    return CallSpec.builder(command, config.get());
  }

  @Override
  public <R> R execute(CallSpec call, Operation<C, R> op) {
    return path.run(routed(call), op);
  }

  @Override
  public <R> CompletableFuture<R> executeAsync(CallSpec call, AsyncOperation<C, R> op) {
    CallSpec routed;
    try {
      routed = routed(call);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return path.runAsync(routed, op);
  }

  /**
   * {@code call} on its candidates: its own, or its key's owners when it names none. The current
   * topology is read either way, so that a new one opens its pools before the call borrows.
   */
  private CallSpec routed(CallSpec call) {
    if (call.candidates() != null) {
      pools.current();
      return call;
    }
    String command = call.command();
    Object key = call.key();
    if (key == null) {
      throw new IllegalArgumentException(
          command + ": the call names neither candidate nodes nor a key to route by");
    }
    Topology t = currentFor(command);
    List<Host> owners =
        key instanceof byte[] b ? router.route(t, b) : router.route(t, key.toString());
    return call.on(key, owned(command, owners, t, key));
  }

  @Override
  public void scatter(List<? extends ScatterPart<C, ?>> parts, CallOptions options) {
    pools.current();
    Scatter.run(path, parts, options);
  }

  // ---------------------------------------------------------------- views

  @Override
  public Topology topology() {
    return pools.current();
  }

  @Override
  public void onTopologyChanged(Topology previous, Topology current) {
    if (current != null) {
      pools.reconcile(current);
      path.latencies.retain(current.hosts());
    }
  }

  @Override
  public boolean isNodeUp(Host host) {
    return host.isUp() && health.isUp(host);
  }

  @Override
  public DynoConfig config() {
    return config.get();
  }

  @Override
  public Registry registry() {
    return metrics.registry();
  }

  @Override
  public String snapshot() {
    return report.snapshot();
  }

  /** Pool figures of one node (for tests and the snapshot); null when it has no pool. */
  public NodePool<C> poolOf(Host h) {
    return pools.poolOf(h);
  }

  public HealthTracker health() {
    return health;
  }

  /**
   * Stops background work, drains every pool (in-flight calls may finish within the socket
   * timeout), then closes all connections. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (maintenance != null) {
      maintenance.cancel();
    }
    if (nodeStates != null) {
      nodeStates.close();
    }
    health.close();
    pools.closeAll();
    metrics.close();
    report.close();
    if (ownScheduler) {
      scheduler.close();
    }
    if (ownIo != null) {
      ownIo.shutdownNow();
    }
    if (ownAttemptThreads != null) {
      ownAttemptThreads.close();
    }
    path.failWaiting();
  }
}
