package io.dyno.jedis.internal;

import io.dyno.core.DynoException;
import io.dyno.core.Host;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.exec.DynoExecutor;
import io.dyno.core.exec.Operation;
import io.dyno.core.routing.Topology;
import io.dyno.core.spi.FailureKind;
import io.dyno.core.spi.NodeConnection;
import io.dyno.core.spi.NodeConnectionFactory;
import io.dyno.core.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * A minimal executor: per-host idle queues, local rack first, failover down the replica list,
 * a node that failed with an I/O error or timeout skipped for a short cool-down. It is the
 * client's fallback until dyno-core's engine (pools, retry policies, health, metrics) is plugged in
 * through {@code DynoJedisClient.Builder#executorFactory}; it has no metrics and no backoff.
 */
public final class BasicExecutor<C extends NodeConnection> implements DynoExecutor<C> {
  private final Topology topology;
  private final NodeConnectionFactory<C> factory;
  private final Duration connectTimeout;
  private final Duration socketTimeout;
  private final Duration coolDown;
  private final Ticker ticker;
  private final Map<Host, ConcurrentLinkedDeque<C>> idle = new ConcurrentHashMap<>();
  private final Map<Host, Long> skipUntil = new ConcurrentHashMap<>();
  private volatile boolean closed;

  public BasicExecutor(Topology topology, NodeConnectionFactory<C> factory, Duration connectTimeout,
      Duration socketTimeout, Duration coolDown, Ticker ticker) {
    this.topology = topology;
    this.factory = factory;
    this.connectTimeout = connectTimeout;
    this.socketTimeout = socketTimeout;
    this.coolDown = coolDown;
    this.ticker = ticker;
  }

  @Override
  public <R> R execute(String command, byte[] key, boolean idempotent, CallOptions options, Operation<C, R> op) {
    return executeOn(command, topology.replicas(key), idempotent, options, op);
  }

  @Override
  public <R> R execute(String command, String key, boolean idempotent, CallOptions options, Operation<C, R> op) {
    return executeOn(command, topology.replicas(key), idempotent, options, op);
  }

  @Override
  public <R> R executeOn(String command, List<Host> candidates, boolean idempotent, CallOptions options, Operation<C, R> op) {
    if (closed) {
      throw new DynoException(command + ": the client is closed");
    }
    long now = ticker.nanoTime();
    List<Host> order = new ArrayList<>(candidates.size());
    List<Host> cooling = new ArrayList<>();
    for (Host h : candidates) {
      Long until = skipUntil.get(h);
      (until != null && until - now > 0 ? cooling : order).add(h);
    }
    order.addAll(cooling); // still tried, last
    boolean retry = idempotent || Boolean.TRUE.equals(options.retryNonIdempotent());
    RuntimeException last = null;
    for (Host host : order) {
      C conn;
      try {
        conn = borrow(host);
        if (options.consistency() != null && options.consistency() != conn.consistency()) {
          conn.setConsistency(options.consistency());
        }
      } catch (Exception e) {
        markDown(host);
        last = new DynoException(command + ": could not open a connection to " + host + ": " + e, e);
        continue; // nothing was sent: safe to try the next replica
      }
      try {
        R result = op.run(conn);
        release(host, conn);
        skipUntil.remove(host);
        return result;
      } catch (Exception e) {
        FailureKind kind = factory.classify(e);
        if (kind == FailureKind.DATA) {
          release(host, conn);
          throw e instanceof RuntimeException re ? re : new DynoException(command + " on " + host + ": " + e, e);
        }
        if (kind == FailureKind.REPLICA) {
          release(host, conn);
        } else {
          conn.close();
          markDown(host);
        }
        last = new DynoException(command + " failed on " + host + " (" + kind + "): " + e.getMessage(), e);
        if (!retry) {
          throw last;
        }
      }
    }
    throw last != null ? last : new DynoException(command + ": no node to run on");
  }

  private void markDown(Host host) {
    skipUntil.put(host, ticker.nanoTime() + coolDown.toNanos());
  }

  private C borrow(Host host) throws Exception {
    ConcurrentLinkedDeque<C> q = idle.computeIfAbsent(host, h -> new ConcurrentLinkedDeque<>());
    C c;
    while ((c = q.pollFirst()) != null) {
      if (!c.isBroken()) {
        return c;
      }
      c.close();
    }
    return factory.open(host, connectTimeout, socketTimeout);
  }

  private void release(Host host, C conn) {
    if (closed || conn.isBroken()) {
      conn.close();
      return;
    }
    idle.computeIfAbsent(host, h -> new ConcurrentLinkedDeque<>()).offerFirst(conn);
  }

  @Override
  public Topology topology() {
    return topology;
  }

  @Override
  public void close() {
    closed = true;
    for (ConcurrentLinkedDeque<C> q : idle.values()) {
      C c;
      while ((c = q.pollFirst()) != null) {
        c.close();
      }
    }
  }
}
