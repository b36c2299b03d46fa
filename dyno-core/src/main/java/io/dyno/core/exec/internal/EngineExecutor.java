package io.dyno.core.exec.internal;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.DeadlineExceededException;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.DynoException;
import io.dyno.core.Host;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.PoolTimeoutException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.exec.DynoEngine;
import io.dyno.core.exec.DynoEngineMXBean;
import io.dyno.core.exec.Operation;
import io.dyno.core.exec.Sleeper;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.metrics.DynoMetrics;
import io.dyno.core.pool.internal.NodePool;
import io.dyno.core.pool.internal.Pooled;
import io.dyno.core.routing.Router;
import io.dyno.core.routing.Topology;
import io.dyno.core.spi.FailureKind;
import io.dyno.core.spi.NodeConnection;
import io.dyno.core.spi.NodeConnectionFactory;
import io.dyno.core.time.Scheduler;
import io.dyno.core.time.Ticker;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's implementation. The request path is {@link #run}: route → choose replica → borrow →
 * set consistency → run → classify → retry / fail over → record.
 */
public final class EngineExecutor<C extends NodeConnection> implements DynoEngine<C> {
  private static final Logger log = LoggerFactory.getLogger(EngineExecutor.class);
  private static final AtomicInteger MBEAN_SEQ = new AtomicInteger();

  private final NodeConnectionFactory<C> factory;
  private final Supplier<DynoConfig> config;
  private final Supplier<Topology> topology;
  private final DynoMetrics metrics;
  private final Scheduler scheduler;
  private final boolean ownScheduler;
  private final Ticker ticker;
  private final Executor io;
  private final ThreadPoolExecutor ownIo;
  private final DoubleSupplier random;
  private final Sleeper sleeper;
  private final boolean datastoreMode;
  private final Router router;
  private final HealthTracker health;
  private final Map<Host, NodePool<C>> pools = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Object reconcileLock = new Object();
  private volatile long seenVersion = Long.MIN_VALUE;
  private volatile Topology seenTopology;
  private Scheduler.Cancellable maintenance;
  private ObjectName mbeanName;
  /** Why each node's latest connect failed (until one succeeds): the start-up error names the reasons. */
  private final Map<Host, Throwable> lastConnectFailures = new ConcurrentHashMap<>();

  private EngineExecutor(NodeConnectionFactory<C> factory, Supplier<DynoConfig> config, Supplier<Topology> topology,
      DynoMetrics metrics, Scheduler scheduler, Ticker ticker, Executor io, DoubleSupplier random, Sleeper sleeper) {
    DynoConfig cfg = config.get();
    this.factory = factory;
    this.config = config;
    this.topology = topology;
    this.metrics = metrics;
    this.ownScheduler = scheduler == null;
    this.scheduler = scheduler != null ? scheduler : Scheduler.daemon("dyno-" + cfg.applicationName() + "-engine");
    this.ticker = ticker != null ? ticker
        : (this.scheduler instanceof Ticker t ? t : Ticker.system());
    if (io == null) {
      AtomicInteger n = new AtomicInteger();
      ownIo = new ThreadPoolExecutor(8, 8, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
        Thread t = new Thread(r, "dyno-" + cfg.applicationName() + "-io-" + n.incrementAndGet());
        t.setDaemon(true);
        return t;
      });
      ownIo.allowCoreThreadTimeOut(true);
      this.io = ownIo;
    } else {
      ownIo = null;
      this.io = io;
    }
    this.random = random != null ? random : () -> ThreadLocalRandom.current().nextDouble();
    this.sleeper = sleeper != null ? sleeper : Sleeper.system();
    this.datastoreMode = cfg.datastoreMode();
    this.router = Router.create(cfg.lbStrategy());
    this.health = new HealthTracker(config, this.ticker, this.scheduler, this.io, h -> pool(h).probe(), metrics);
  }

  /** Builds and starts an engine (see {@link DynoEngine.Builder#build()}). */
  public static <C extends NodeConnection> EngineExecutor<C> start(NodeConnectionFactory<C> factory,
      Supplier<DynoConfig> config, Supplier<Topology> topology, DynoMetrics metrics, Scheduler scheduler,
      Ticker ticker, Executor io, DoubleSupplier random, Sleeper sleeper, boolean registerMBean) {
    EngineExecutor<C> e = new EngineExecutor<>(factory, config, topology, metrics, scheduler, ticker, io, random,
        sleeper);
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
    metrics.gauge(metrics.id(DynoMetrics.NODES_UP), this,
        e -> e.seenTopology == null ? 0 : Math.max(0, e.seenTopology.hosts().size() - e.health.downCount()));
    Topology t = topology.get();
    if (t != null) {
      reconcile(t);
    }
    Duration every = cfg.maintenanceInterval();
    maintenance = scheduler.scheduleAtFixedRate(this::maintain, every, every);
    if (cfg.failOnStartupIfNoHosts()) {
      awaitFirstConnection(cfg);
    }
    if (registerMBean) {
      registerMBean(cfg.applicationName());
    }
  }

  private void awaitFirstConnection(DynoConfig cfg) {
    Topology t = seenTopology;
    if (t == null || t.hosts().isEmpty()) {
      throw new NoAvailableHostsException("no Dynomite nodes known at start-up (the topology is empty);"
          + " set failOnStartupIfNoHosts=false to start anyway and serve once nodes appear");
    }
    for (Host h : t.hosts()) {
      pool(h).fill(Math.max(1, cfg.minConnsPerHost()));
    }
    long end = System.nanoTime() + cfg.startupTimeout().toNanos();
    while (true) {
      for (NodePool<C> p : pools.values()) {
        if (p.size() > 0) {
          return;
        }
      }
      if (System.nanoTime() - end >= 0) {
        StringBuilder why = new StringBuilder();
        lastConnectFailures.forEach((h, f) -> why.append(why.length() == 0 ? "; reasons: " : "; ").append(h.id())
            .append(" → ").append(f.getMessage() != null ? f.getMessage() : f.toString()));
        throw new NoAvailableHostsException("no Dynomite node answered within " + cfg.startupTimeout().toMillis()
            + " ms at start-up; tried " + t.hosts() + why
            + "; set failOnStartupIfNoHosts=false to start anyway and serve once nodes appear");
      }
      java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
    }
  }

  // ---------------------------------------------------------------- request path

  @Override
  public <R> R execute(String command, byte[] key, boolean idempotent, CallOptions options, Operation<C, R> op) {
    Topology t = current();
    List<Host> replicas = router.route(t, key);
    if (replicas.isEmpty()) {
      throw new NoAvailableHostsException(command + ": no node owns key \"" + printable(key)
          + "\" (topology version " + t.version() + " has " + t.hosts().size() + " nodes)");
    }
    return run(command, replicas, idempotent, options, op);
  }

  @Override
  public <R> R execute(String command, String key, boolean idempotent, CallOptions options, Operation<C, R> op) {
    Topology t = current();
    List<Host> replicas = router.route(t, key);
    if (replicas.isEmpty()) {
      throw new NoAvailableHostsException(command + ": no node owns key \"" + key + "\" (topology version "
          + t.version() + " has " + t.hosts().size() + " nodes)");
    }
    return run(command, replicas, idempotent, options, op);
  }

  @Override
  public <R> R executeOn(String command, List<Host> candidates, boolean idempotent, CallOptions options,
      Operation<C, R> op) {
    current();
    if (candidates == null || candidates.isEmpty()) {
      throw new NoAvailableHostsException(command + ": no candidate nodes were given");
    }
    return run(command, candidates, idempotent, options, op);
  }

  /**
   * One call: route → choose replica → borrow → set consistency → run → classify → retry / fail over → record.
   *
   * <p>Rules: a failure before the command was sent (borrow timeout, connect failure, draining node,
   * consistency switch failure) moves on to the next replica whatever the command; a failure after it
   * was sent is retried only for idempotent commands (or when allowed), within the retry policy's
   * attempts. Each move to another node counts against {@code maxFailoverCount}. Re-running on a node
   * already tried waits the policy's backoff. No borrow, backoff or new attempt starts after the
   * deadline.
   *
   * <p>Deadline inside a run: with a deadline, each run's read timeout
   * ({@link NodeConnection#setReadTimeout}) is capped at the time left — or at half of it when the
   * call could still move on to an untried replica, so that a hung node leaves the other half for the
   * failover — and the connection's socket timeout is put back when the run ends. A run that timed
   * out discards its connection (a late reply must never reach the next borrower).
   */
  private <R> R run(String command, List<Host> candidates, boolean idempotent, CallOptions options,
      Operation<C, R> op) {
    if (closed.get()) {
      throw new IllegalStateException("the Dyno engine is closed; " + command + " was not sent");
    }
    DynoConfig cfg = config.get();
    CallOptions o = options == null ? CallOptions.defaults() : options;
    ConsistencyLevel level = o.consistency();
    if (level != null && datastoreMode) {
      throw new IllegalArgumentException(command + ": consistency " + level + " was requested, but this client"
          + " runs in datastore mode (straight to each node's Redis), which has no Dynomite consistency;"
          + " drop the consistency option or turn datastoreMode off");
    }
    if (level == null) {
      level = cfg.defaultConsistency();
    }
    boolean retryUnknown = idempotent
        || (o.retryNonIdempotent() != null ? o.retryNonIdempotent() : cfg.retryNonIdempotent());
    RetryPolicy policy = cfg.retryPolicy();
    long start = ticker.nanoTime();
    Duration dl = o.deadline() != null ? o.deadline() : cfg.requestDeadline();
    long deadline = dl == null ? Long.MAX_VALUE : start + dl.toNanos();
    long borrowTimeout = cfg.maxTimeoutWhenExhausted().toNanos();
    int n = Math.min(candidates.size(), 64);

    long tried = 0;
    int current = -1;
    int failovers = 0;
    int runs = 0;
    int reruns = 0;
    int unsent = 0;
    boolean allowRerun = false;
    Host host = null;
    DynoException last = null;
    String outcome = "error";
    try {
      while (true) {
        int next = pick(candidates, n, tried, current, failovers, cfg.maxFailoverCount(), allowRerun);
        if (next < 0) {
          outcome = outcomeOf(last);
          throw exhausted(command, last, runs, failovers);
        }
        boolean rerun = (tried & (1L << next)) != 0;
        if (current >= 0 && next != current) {
          failovers++;
          metrics.failover(command, candidates.get(next).rack());
        }
        current = next;
        host = candidates.get(next);
        tried |= 1L << next;
        if (rerun) {
          long wait = policy.backoffNanos(++reruns, random);
          if (wait > 0) {
            if (deadline - ticker.nanoTime() <= wait) {
              outcome = "deadline_exceeded";
              throw deadlineExceeded(command, dl, runs, last);
            }
            sleeper.sleep(wait);
          }
        }
        long now = ticker.nanoTime();
        if (now - deadline >= 0) {
          outcome = "deadline_exceeded";
          throw deadlineExceeded(command, dl, runs, last);
        }

        NodePool<C> pool = pool(host);
        Pooled<C> pooled;
        try {
          pooled = pool.borrow(Math.min(borrowTimeout, deadline - now));
        } catch (PoolTimeoutException | DynoConnectionException e) {
          last = chain(last, e);
          allowRerun = false;
          if (++unsent > n + policy.maxAttempts()) {
            outcome = outcomeOf(last);
            throw exhausted(command, last, runs, failovers);
          }
          continue; // never sent: another replica may take it, whatever the command
        }

        long budget = Long.MAX_VALUE;
        if (deadline != Long.MAX_VALUE) {
          long left = deadline - ticker.nanoTime();
          if (left <= 0) {
            pool.release(pooled);
            outcome = "deadline_exceeded";
            throw deadlineExceeded(command, dl, runs, last);
          }
          // A hung node must not eat the whole deadline when another replica could still take the call.
          boolean canMoveOn = retryUnknown && runs + 1 < policy.maxAttempts()
              && failovers < cfg.maxFailoverCount() && Long.bitCount(tried) < n;
          budget = canMoveOn ? left / 2 : left;
        }

        C conn = pooled.connection();
        boolean sent = false;
        try {
          if (budget != Long.MAX_VALUE) {
            pooled.capReadTimeout((budget + 999_999) / 1_000_000);
          }
          applyConsistency(conn, level);
          sent = true;
          runs++;
          R result = op.run(conn);
          keep(pool, pooled);
          outcome = "success";
          return result;
        } catch (Throwable t) {
          FailureKind kind = classify(t);
          if (kind == FailureKind.DATA) {
            keep(pool, pooled);
            outcome = "data_error";
            throw asUnchecked(command, t);
          }
          if (kind == FailureKind.REPLICA) {
            keep(pool, pooled);
          } else {
            pool.discard(pooled, "broken");
            health.failure(host);
          }
          DynoConnectionException e = new DynoConnectionException(command + " failed on " + host + " ("
              + kind + (sent ? "" : ", before the command was sent") + "): " + t, host, kind, t);
          last = chain(last, e);
          if (sent && !retryUnknown) {
            outcome = outcomeOf(last);
            throw new DynoConnectionException(e.getMessage() + "; not retried because " + command
                + " is not idempotent (allow with CallOptions.withRetryNonIdempotent)", host, kind, t);
          }
          if (sent && runs >= policy.maxAttempts()) {
            outcome = outcomeOf(last);
            throw exhausted(command, last, runs, failovers);
          }
          if (!sent && ++unsent > n + policy.maxAttempts()) {
            outcome = outcomeOf(last);
            throw exhausted(command, last, runs, failovers);
          }
          if (sent) {
            metrics.retry(command);
          }
          allowRerun = true;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      outcome = "error";
      throw new DynoException(command + ": interrupted while waiting to retry", e);
    } finally {
      metrics.op(command, outcome, host == null ? "none" : host.rack(), ticker.nanoTime() - start);
    }
  }

  /**
   * The next candidate: the first untried healthy one (in preference order), then an untried
   * unhealthy one, then — if re-running is allowed — a tried one (healthy first, else the current).
   * Moving to another node is refused once {@code failovers} reached the limit. -1 = nothing left.
   */
  private int pick(List<Host> candidates, int n, long tried, int current, int failovers, int maxFailovers,
      boolean allowRerun) {
    boolean mayMove = current < 0 || failovers < maxFailovers;
    if (mayMove) {
      int unhealthy = -1;
      for (int i = 0; i < n; i++) {
        if ((tried & (1L << i)) == 0) {
          if (health.isUp(candidates.get(i))) {
            return i;
          }
          if (unhealthy < 0) {
            unhealthy = i;
          }
        }
      }
      if (unhealthy >= 0) {
        return unhealthy;
      }
    }
    if (!allowRerun || current < 0) {
      return -1;
    }
    if (mayMove) {
      for (int i = 0; i < n; i++) {
        if (health.isUp(candidates.get(i))) {
          return i;
        }
      }
    }
    return current;
  }

  /**
   * Returns a connection whose run ended without an I/O failure, first putting back the socket
   * timeout if this call capped it. A connection that cannot be reset is discarded instead.
   */
  private void keep(NodePool<C> pool, Pooled<C> pooled) {
    try {
      pooled.restoreReadTimeout();
    } catch (Throwable t) {
      log.debug("could not restore the socket timeout of a connection to {}: {}", pool.host(), t.toString());
      pool.discard(pooled, "broken");
      return;
    }
    pool.release(pooled);
  }

  /** Sends the consistency switch only when the connection's level differs from the wanted one. */
  private void applyConsistency(C conn, ConsistencyLevel wanted) throws Exception {
    ConsistencyLevel now = conn.consistency();
    // A connection moved off the server default by an earlier call goes back to DC_ONE (Dynomite's default).
    ConsistencyLevel target = wanted != null ? wanted : (now != null ? ConsistencyLevel.DC_ONE : null);
    if (target != null && target != now) {
      conn.setConsistency(target);
      metrics.consistencySet(target.name());
    }
  }

  private FailureKind classify(Throwable t) {
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

  private static RuntimeException asUnchecked(String command, Throwable t) {
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new DynoException(command + ": " + t, t);
  }

  private static DynoException chain(DynoException last, DynoException next) {
    if (last != null && last != next) {
      next.addSuppressed(last);
    }
    return next;
  }

  private static String outcomeOf(DynoException e) {
    if (e instanceof PoolTimeoutException) {
      return "pool_timeout";
    }
    if (e instanceof DynoConnectionException c && c.kind() != null) {
      return switch (c.kind()) {
        case TIMEOUT -> "timeout";
        case REPLICA -> "replica_error";
        case DATA -> "data_error";
        default -> "connection_error";
      };
    }
    return e == null ? "no_hosts" : "error";
  }

  private static DynoException exhausted(String command, DynoException last, int runs, int failovers) {
    if (last == null) {
      return new NoAvailableHostsException(command + ": no node could take the command");
    }
    if (runs == 0 && last instanceof PoolTimeoutException) {
      return last; // the clearest message: which pool, how many waiters, how long
    }
    if (last instanceof DynoConnectionException c) {
      DynoConnectionException e = new DynoConnectionException(command + " failed after " + runs + " run(s) and "
          + failovers + " failover(s); last: " + c.getMessage(), c.host(), c.kind(), c.getCause());
      for (Throwable s : c.getSuppressed()) {
        e.addSuppressed(s);
      }
      return e;
    }
    return last;
  }

  private static DeadlineExceededException deadlineExceeded(String command, Duration dl, int runs,
      DynoException last) {
    return new DeadlineExceededException(command + ": deadline of " + (dl == null ? "?" : dl.toMillis() + " ms")
        + " passed after " + runs + " run(s)" + (last == null ? "" : "; last failure: " + last.getMessage()),
        runs, last);
  }

  // ---------------------------------------------------------------- topology and pools

  private Topology current() {
    Topology t = topology.get();
    if (t == null) {
      throw new NoAvailableHostsException("no topology yet: the cluster's nodes are not known");
    }
    if (t.version() != seenVersion) {
      reconcile(t);
    }
    return t;
  }

  @Override
  public void onTopologyChanged(Topology previous, Topology current) {
    if (current != null) {
      reconcile(current);
    }
  }

  /** Opens pools for new nodes and drains the pools of nodes that left. */
  private void reconcile(Topology t) {
    synchronized (reconcileLock) {
      if (closed.get() || t.version() == seenVersion) {
        return;
      }
      Set<Host> now = new HashSet<>(t.hosts());
      for (Map.Entry<Host, NodePool<C>> e : pools.entrySet()) {
        if (!now.contains(e.getKey())) {
          log.info("node {} left the topology; draining its pool", e.getKey());
          retire(e.getKey(), e.getValue());
        }
      }
      int min = config.get().minConnsPerHost();
      for (Host h : now) {
        pool(h).fill(min);
      }
      seenTopology = t;
      seenVersion = t.version();
    }
  }

  private void retire(Host h, NodePool<C> p) {
    pools.remove(h, p);
    p.drain();
    health.remove(h);
    removeGauges(h);
  }

  private NodePool<C> pool(Host h) {
    NodePool<C> p = pools.get(h);
    if (p != null) {
      return p;
    }
    return pools.computeIfAbsent(h, this::newPool);
  }

  private NodePool<C> newPool(Host h) {
    Host connectTo = h;
    if (datastoreMode) {
      if (h.datastorePort() < 0) {
        throw new DynoConnectionException("datastore mode: node " + h + " has no datastore (Redis) port",
            h, FailureKind.CONNECTION, null);
      }
      connectTo = Host.builder(h.hostname(), h.datastorePort()).ipAddress(h.ipAddress()).rack(h.rack())
          .datacenter(h.datacenter()).status(h.status()).password(h.password()).build();
    }
    NodePool<C> p = new NodePool<>(h, connectTo, factory, config, io, ticker, metrics, new NodePool.Events() {
      @Override
      public void connectFailed(Host host, Throwable cause) {
        lastConnectFailures.put(host, cause);
        health.failure(host);
      }

      @Override
      public void connected(Host host) {
        lastConnectFailures.remove(host);
      }
    });
    String[] tags = {"node", h.id(), "rack", h.rack()};
    metrics.gauge(metrics.id(DynoMetrics.POOL_SIZE, tags), p, NodePool::size);
    metrics.gauge(metrics.id(DynoMetrics.POOL_ACTIVE, tags), p, NodePool::active);
    metrics.gauge(metrics.id(DynoMetrics.POOL_IDLE, tags), p, NodePool::idle);
    metrics.gauge(metrics.id(DynoMetrics.POOL_WAITERS, tags), p, NodePool::waiters);
    return p;
  }

  private void removeGauges(Host h) {
    String[] tags = {"node", h.id(), "rack", h.rack()};
    for (String name : List.of(DynoMetrics.POOL_SIZE, DynoMetrics.POOL_ACTIVE, DynoMetrics.POOL_IDLE,
        DynoMetrics.POOL_WAITERS)) {
      metrics.removeGauge(metrics.id(name, tags));
    }
  }

  private void maintain() {
    for (NodePool<C> p : pools.values()) {
      try {
        p.maintain();
      } catch (RuntimeException e) {
        log.warn("pool maintenance for {} failed: {}", p.host(), e.toString());
      }
    }
  }

  // ---------------------------------------------------------------- views

  @Override
  public Topology topology() {
    return current();
  }

  @Override
  public DynoConfig config() {
    return config.get();
  }

  @Override
  public DynoMetrics metrics() {
    return metrics;
  }

  /** Pool figures of one node (for tests and the snapshot); null when it has no pool. */
  public NodePool<C> poolOf(Host h) {
    return pools.get(h);
  }

  public HealthTracker health() {
    return health;
  }

  @Override
  public String snapshot() {
    StringBuilder sb = new StringBuilder();
    Topology t = seenTopology;
    sb.append("Dyno engine '").append(config.get().applicationName()).append("'");
    if (t == null) {
      sb.append(": no topology yet\n");
    } else {
      sb.append(": topology version ").append(t.version()).append(", local rack ").append(t.localRack())
          .append(", local dc ").append(t.localDatacenter()).append('\n');
      Map<String, TreeMap<Long, Host>> byRack = new TreeMap<>();
      for (Topology.TokenRange r : t.tokenRanges()) {
        for (Host h : r.replicas()) {
          byRack.computeIfAbsent(h.datacenter() + "/" + h.rack(), k -> new TreeMap<>()).put(r.endInclusive(), h);
        }
      }
      for (Map.Entry<String, TreeMap<Long, Host>> rack : byRack.entrySet()) {
        sb.append("  rack ").append(rack.getKey()).append('\n');
        for (Map.Entry<Long, Host> e : rack.getValue().entrySet()) {
          Host h = e.getValue();
          NodePool<C> p = pools.get(h);
          sb.append("    token ").append(e.getKey()).append("  ").append(h.id())
              .append(health.isUp(h) ? "  UP" : "  DOWN")
              .append(String.format("  score=%.2f", health.score(h)))
              .append(p == null ? "  (no pool)" : "  pool[size=" + p.size() + " active=" + p.active() + " idle="
                  + p.idle() + " waiters=" + p.waiters() + "]")
              .append('\n');
        }
      }
    }
    sb.append("  configuration:\n");
    config.get().describe().forEach((k, v) -> sb.append("    ").append(k).append(" = ").append(v).append('\n'));
    return sb.toString();
  }

  private void registerMBean(String app) {
    try {
      var server = ManagementFactory.getPlatformMBeanServer();
      ObjectName name = new ObjectName("io.dyno:type=DynoEngine,name=" + app);
      if (server.isRegistered(name)) {
        name = new ObjectName("io.dyno:type=DynoEngine,name=" + app + "-" + MBEAN_SEQ.incrementAndGet());
      }
      EngineExecutor<C> self = this;
      server.registerMBean(new javax.management.StandardMBean(new DynoEngineMXBean() {
        @Override
        public String getSnapshot() {
          return self.snapshot();
        }

        @Override
        public String getConfiguration() {
          StringBuilder sb = new StringBuilder();
          self.config.get().describe().forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
          return sb.toString();
        }

        @Override
        public int getNodesUp() {
          Topology t = self.seenTopology;
          return t == null ? 0 : Math.max(0, t.hosts().size() - self.health.downCount());
        }

        @Override
        public int getNodesDown() {
          return self.health.downCount();
        }
      }, DynoEngineMXBean.class, true), name);
      mbeanName = name;
    } catch (Exception | LinkageError e) {
      log.warn("could not register the Dyno JMX bean: {}", e.toString());
    }
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
    health.close();
    List<NodePool<C>> all = new ArrayList<>(pools.values());
    for (NodePool<C> p : all) {
      p.drain();
    }
    long end = System.nanoTime() + config.get().socketTimeout().toNanos();
    for (NodePool<C> p : all) {
      while (p.active() > 0 && System.nanoTime() - end < 0) {
        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
      }
      p.close();
    }
    pools.clear();
    metrics.close();
    if (mbeanName != null) {
      try {
        ManagementFactory.getPlatformMBeanServer().unregisterMBean(mbeanName);
      } catch (Exception e) {
        log.debug("could not unregister {}: {}", mbeanName, e.toString());
      }
    }
    if (ownScheduler) {
      scheduler.close();
    }
    if (ownIo != null) {
      ownIo.shutdownNow();
    }
  }

  private static String printable(byte[] key) {
    String s = new String(key, 0, Math.min(key.length, 64), StandardCharsets.UTF_8);
    return key.length > 64 ? s + "…" : s;
  }
}
