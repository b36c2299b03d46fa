package io.dyno.core.exec.internal;

import io.dyno.core.DynoConnectionException;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.engine.internal.NodeConnection;
import io.dyno.core.engine.internal.NodeConnectionFactory;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.metrics.DynoMetrics;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.pool.internal.NodePool;
import io.dyno.core.routing.Topology;
import io.dyno.core.time.Ticker;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pool per node of the current topology: opened when a node appears (or is first used),
 * drained when it leaves, each with its gauges; the topology snapshot in force; start-up's wait
 * for a first connection.
 */
final class PoolRegistry<C extends NodeConnection> {
  private static final Logger log = LoggerFactory.getLogger(PoolRegistry.class);

  private final NodeConnectionFactory<C> factory;
  private final Supplier<DynoConfig> config;
  private final Supplier<Topology> topology;
  private final Executor io;
  private final Ticker ticker;
  private final Meters metrics;
  private final boolean datastoreMode;
  private final Map<Host, NodePool<C>> pools = new ConcurrentHashMap<>();
  /** Why each node's latest connect failed (until one succeeds): the start-up error names the reasons. */
  private final Map<Host, Throwable> lastConnectFailures = new ConcurrentHashMap<>();

  private final Object reconcileLock = new Object();
  private HealthTracker health;
  private volatile long seenVersion = Long.MIN_VALUE;
  private volatile Topology seenTopology;
  private volatile boolean closed;

  PoolRegistry(
      NodeConnectionFactory<C> factory,
      Supplier<DynoConfig> config,
      Supplier<Topology> topology,
      Executor io,
      Ticker ticker,
      Meters metrics,
      boolean datastoreMode) {
    this.factory = factory;
    this.config = config;
    this.topology = topology;
    this.io = io;
    this.ticker = ticker;
    this.metrics = metrics;
    this.datastoreMode = datastoreMode;
  }

  /** Set once, before the first pool opens (health probes use the pools, so they are built after). */
  void health(HealthTracker h) {
    this.health = h;
  }

  /** The topology in force; a new snapshot (by version) reconciles the pools first. */
  Topology current() {
    Topology t = topology.get();
    if (t == null) {
      throw new NoAvailableHostsException("no topology yet: the cluster's nodes are not known");
    }
    if (t.version() != seenVersion) {
      reconcile(t);
    }
    return t;
  }

  /** The last snapshot reconciled (null before the first). */
  Topology seen() {
    return seenTopology;
  }

  /** Opens pools for new nodes and drains the pools of nodes that left. */
  void reconcile(Topology t) {
    synchronized (reconcileLock) {
      if (closed || t.version() == seenVersion) {
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

  NodePool<C> pool(Host h) {
    NodePool<C> p = pools.get(h);
    return p != null ? p : pools.computeIfAbsent(h, this::open);
  }

  /** The pool of {@code h}, or null when it has none. */
  NodePool<C> poolOf(Host h) {
    return pools.get(h);
  }

  /**
   * Start-up with {@code failOnStartupIfNoHosts}: waits until some node gave a connection, or
   * fails naming the nodes tried and why each failed. The start-up timeout is measured on the
   * engine's ticker (the pause between checks is real), so a test clock decides when it runs out.
   */
  void awaitFirstConnection(DynoConfig cfg) {
    Topology t = seenTopology;
    if (t == null || t.hosts().isEmpty()) {
      throw new NoAvailableHostsException(
          "no Dynomite nodes known at start-up (the topology is empty);"
              + " set failOnStartupIfNoHosts=false to start anyway and serve once nodes appear");
    }
    for (Host h : t.hosts()) {
      pool(h).fill(Math.max(1, cfg.minConnsPerHost()));
    }
    long end = ticker.nanoTime() + cfg.startupTimeout().toNanos();
    while (pools.values().stream().noneMatch(p -> p.size() > 0)) {
      if (ticker.nanoTime() - end >= 0) {
        StringBuilder why = new StringBuilder();
        Throwable last = null;
        boolean allRefused = true;
        for (Host h : t.hosts()) {
          Throwable f = lastConnectFailures.get(h);
          allRefused &= f != null && refused(f);
          if (f != null) {
            last = f;
            why.append(why.length() == 0 ? "; reasons: " : "; ")
                .append(h.id())
                .append(" → ")
                .append(f.getMessage() != null ? f.getMessage() : f.toString());
          }
        }
        throw new NoAvailableHostsException(
            "no Dynomite node answered within " + cfg.startupTimeout().toMillis()
                + " ms at start-up; tried " + t.hosts() + why
                + (allRefused
                    ? ". Every node refused the connection: nothing listens at those ports"
                        + " (the topology's client ports are wrong, or the nodes are down)"
                    : "")
                + ". If the nodes are still starting, failOnStartupIfNoHosts=false starts the"
                + " client anyway, serving once they answer",
            last);
      }
      LockSupport.parkNanos(
          1_000_000); // the pools connect on the io threads; nothing to wait on here
    }
  }

  /** Whether a connect failure is a refused connection: nothing listening at that port. */
  static boolean refused(Throwable failure) {
    for (Throwable c = failure; c != null; c = c.getCause()) {
      if (c instanceof ConnectException) {
        return true;
      }
    }
    return false;
  }

  /** Periodic: idle eviction, keep-alive and refill of every pool. */
  void maintain() {
    for (NodePool<C> p : pools.values()) {
      try {
        p.maintain();
      } catch (RuntimeException e) {
        log.warn("pool maintenance for {} failed: {}", p.host(), e.toString());
      }
    }
  }

  /**
   * Drains every pool, lets borrowed connections come back for up to the socket timeout (on the
   * engine's ticker), closes all.
   */
  void closeAll() {
    synchronized (reconcileLock) {
      closed = true;
    }
    List<NodePool<C>> all = new ArrayList<>(pools.values());
    all.forEach(NodePool::drain);
    long end = ticker.nanoTime() + config.get().socketTimeout().toNanos();
    for (NodePool<C> p : all) {
      while (p.active() > 0 && ticker.nanoTime() - end < 0) {
        LockSupport.parkNanos(1_000_000);
      }
      p.close();
    }
    pools.clear();
  }

  private void retire(Host h, NodePool<C> p) {
    pools.remove(h, p);
    p.drain();
    health.remove(h);
    try {
      factory.nodeLeft(p.connectHost());
    } catch (RuntimeException e) {
      log.warn("the driver failed to release what it kept for {}: {}", h, e.toString());
    }
    for (String name : List.of(
        DynoMetrics.POOL_SIZE,
        DynoMetrics.POOL_ACTIVE,
        DynoMetrics.POOL_IDLE,
        DynoMetrics.POOL_WAITERS)) {
      metrics.removeGauge(metrics.id(name, tags(h)));
    }
  }

  private NodePool<C> open(Host h) {
    Host connectTo = h;
    if (datastoreMode) {
      if (h.datastorePort() < 0) {
        throw new DynoConnectionException(
            "datastore mode: node " + h + " has no datastore (Redis) port",
            h,
            FailureKind.CONNECTION,
            null);
      }
      connectTo = Host.builder(h.hostname(), h.datastorePort())
          .ipAddress(h.ipAddress())
          .rack(h.rack())
          .datacenter(h.datacenter())
          .status(h.status())
          .password(h.password())
          .build();
    }
    NodePool<C> p =
        new NodePool<>(h, connectTo, factory, config, io, ticker, metrics, new NodePool.Events() {
          @Override
          public void connectFailed(Host host, Throwable cause) {
            lastConnectFailures.put(host, cause);
            health.failure(host);
          }

          @Override
          public void connected(Host host) {
            lastConnectFailures.remove(host);
          }

          @Override
          public boolean inRotation(Host host) {
            return health.isUp(host);
          }

          @Override
          public void connectStalled(Host host, long waitedNanos) {
            health.timedOut(host, waitedNanos);
          }
        });
    metrics.gauge(metrics.id(DynoMetrics.POOL_SIZE, tags(h)), p, NodePool::size);
    metrics.gauge(metrics.id(DynoMetrics.POOL_ACTIVE, tags(h)), p, NodePool::active);
    metrics.gauge(metrics.id(DynoMetrics.POOL_IDLE, tags(h)), p, NodePool::idle);
    metrics.gauge(metrics.id(DynoMetrics.POOL_WAITERS, tags(h)), p, NodePool::waiters);
    return p;
  }

  private static String[] tags(Host h) {
    return new String[] {"node", h.id(), "rack", h.rack()};
  }
}
