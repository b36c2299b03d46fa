package io.dyno.core.metrics;

import com.netflix.spectator.api.Counter;
import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Id;
import com.netflix.spectator.api.Registry;
import com.netflix.spectator.api.Timer;
import com.netflix.spectator.api.histogram.PercentileTimer;
import com.netflix.spectator.api.patterns.PolledMeter;
import io.dyno.core.Host;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;

/**
 * Dyno's Spectator meters. Names are stable and prefixed {@code dyno.}; every meter carries the
 * tag {@code app} (the configured application name). The constants below are the whole list.
 *
 * <p>Drivers and the topology refresher record through this class too (e.g.
 * {@link #topologyRefresh(boolean)}), so that every client of one application shares one set of ids.
 */
public final class DynoMetrics {
  /**
   * PercentileTimer: time to obtain a connection, every borrow (one that found a free connection at
   * once counts as 0 ns and reaches the timer within one maintenance interval, see
   * {@link BorrowDelay}). Tags: app, node, rack.
   */
  public static final String POOL_BORROW = "dyno.pool.borrow";
  /** Counter: borrows that timed out. Tags: app, node, rack. */
  public static final String POOL_BORROW_TIMEOUTS = "dyno.pool.borrow.timeouts";
  /** Gauge: open connections of a node's pool. Tags: app, node, rack. */
  public static final String POOL_SIZE = "dyno.pool.size";
  /** Gauge: connections borrowed now. Tags: app, node, rack. */
  public static final String POOL_ACTIVE = "dyno.pool.active";
  /** Gauge: idle connections. Tags: app, node, rack. */
  public static final String POOL_IDLE = "dyno.pool.idle";
  /** Gauge: callers waiting for a connection. Tags: app, node, rack. */
  public static final String POOL_WAITERS = "dyno.pool.waiters";
  /** Counter: connections opened. Tags: app, node. */
  public static final String CONNECTIONS_CREATED = "dyno.pool.connections.created";
  /** Counter: connection opens that failed. Tags: app, node. */
  public static final String CONNECTIONS_FAILED = "dyno.pool.connections.failed";
  /** Counter: connections closed. Tags: app, node, reason (broken, idle, keepalive, drained, shrink, closed). */
  public static final String CONNECTIONS_CLOSED = "dyno.pool.connections.closed";
  /**
   * Timer: one call of the executor, from first borrow to result, retries included. Tags: app,
   * command, outcome (success, data_error, connection_error, timeout, replica_error, pool_timeout,
   * deadline_exceeded, no_hosts, error), rack (of the last node tried, "none" if none).
   */
  public static final String OP_LATENCY = "dyno.op.latency";
  /** Counter: re-runs of a command after a failed run. Tags: app, command. */
  public static final String OP_RETRIES = "dyno.op.retries";
  /** Counter: a call moved to another node (rack). Tags: app, command, rack (the node moved to). */
  public static final String OP_FAILOVERS = "dyno.op.failovers";
  /** Counter: {@code DYNO_CONFIG:CONN_CONSISTENCY} sent. Tags: app, level. */
  public static final String CONSISTENCY_SET = "dyno.consistency.set";
  /** Gauge: nodes taking traffic. Tags: app. */
  public static final String NODES_UP = "dyno.nodes.up";
  /** Gauge: nodes skipped for a cool-down after repeated failures. Tags: app. */
  public static final String NODES_DOWN = "dyno.nodes.down";
  /** Counter: health transitions. Tags: app, node, state (down, up). */
  public static final String NODE_HEALTH = "dyno.node.health";
  /** Counter: topology refreshes. Tags: app, result (success, failure). */
  public static final String TOPOLOGY_REFRESH = "dyno.topology.refresh";
  /**
   * PercentileTimer, multiplexed transport only: how long a request waited before it went on the
   * wire, from its submit to the write that carried it (any wait for the in-flight limit, then the
   * wait for the event loop's next coalesced write). The multiplexed counterpart of
   * {@link #POOL_BORROW}. Tags: app, node, rack.
   */
  public static final String MUX_QUEUE_DELAY = "dyno.mux.queue.delay";
  /** Gauge, multiplexed transport: requests written and not yet answered, over a node's connections. Tags: app, node, rack. */
  public static final String MUX_IN_FLIGHT = "dyno.mux.inflight";
  /** Gauge, multiplexed transport: requests submitted and not yet written. Tags: app, node, rack. */
  public static final String MUX_QUEUED = "dyno.mux.queued";
  /**
   * Counter, multiplexed transport: requests that waited for room under the in-flight limit and
   * gave up, unsent (the counterpart of {@link #POOL_BORROW_TIMEOUTS}). Tags: app, node, rack.
   */
  public static final String MUX_IN_FLIGHT_LIMIT_TIMEOUTS = "dyno.mux.inflight.limit.timeouts";

  /** All meter names, for documentation and tests. */
  public static final List<String> ALL = List.of(POOL_BORROW, POOL_BORROW_TIMEOUTS, POOL_SIZE, POOL_ACTIVE,
      POOL_IDLE, POOL_WAITERS, CONNECTIONS_CREATED, CONNECTIONS_FAILED, CONNECTIONS_CLOSED, OP_LATENCY,
      OP_RETRIES, OP_FAILOVERS, CONSISTENCY_SET, NODES_UP, NODES_DOWN, NODE_HEALTH, TOPOLOGY_REFRESH,
      MUX_QUEUE_DELAY, MUX_IN_FLIGHT, MUX_QUEUED, MUX_IN_FLIGHT_LIMIT_TIMEOUTS);

  private final Registry registry;
  private final String app;
  private final Map<String, Timer> opTimers = new ConcurrentHashMap<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final List<Id> polled = new ArrayList<>();

  /** @param registry the user's registry, or null for a private {@link DefaultRegistry} */
  public DynoMetrics(Registry registry, String app) {
    this.registry = registry != null ? registry : new DefaultRegistry();
    this.app = app;
  }

  public Registry registry() { return registry; }

  public Id id(String name, String... tags) {
    return registry.createId(name).withTag("app", app).withTags(tags);
  }

  /**
   * The borrow-delay recorder of one node's pool (one per pool).
   *
   * @param immediateBorrows the pool's running total of borrows that found a connection at once
   */
  public BorrowDelay borrowDelay(Host host, LongSupplier immediateBorrows) {
    return new BorrowDelay(registry, id(POOL_BORROW, "node", host.id(), "rack", host.rack()), immediateBorrows);
  }

  /**
   * The multiplexed transport's queue delay of one node ({@link #MUX_QUEUE_DELAY}): a PercentileTimer
   * with the range of {@link BorrowDelay}, so both delays read on the same buckets.
   */
  public Timer muxQueueDelay(Host host) {
    return PercentileTimer.builder(registry).withId(id(MUX_QUEUE_DELAY, nodeTags(host)))
        .withRange(BorrowDelay.MIN, BorrowDelay.MAX).build();
  }

  /** The multiplexed transport's in-flight-limit timeouts of one node ({@link #MUX_IN_FLIGHT_LIMIT_TIMEOUTS}). */
  public Counter muxInFlightLimitTimeouts(Host host) {
    return registry.counter(id(MUX_IN_FLIGHT_LIMIT_TIMEOUTS, nodeTags(host)));
  }

  /** The tags of a node's pool meters: node (its id) and rack. */
  public static String[] nodeTags(Host host) {
    return new String[] {"node", host.id(), "rack", host.rack()};
  }

  public void borrowTimeout(Host host) {
    counter(POOL_BORROW_TIMEOUTS, "node", host.id(), "rack", host.rack()).increment();
  }

  public void connectionCreated(Host host) {
    counter(CONNECTIONS_CREATED, "node", host.id()).increment();
  }

  public void connectionFailed(Host host) {
    counter(CONNECTIONS_FAILED, "node", host.id()).increment();
  }

  public void connectionClosed(Host host, String reason) {
    counter(CONNECTIONS_CLOSED, "node", host.id(), "reason", reason).increment();
  }

  /** Records one executor call. */
  public void op(String command, String outcome, String rack, long nanos) {
    String key = command + '\u0000' + outcome + '\u0000' + rack;
    Timer t = opTimers.get(key);
    if (t == null) {
      t = opTimers.computeIfAbsent(key,
          k -> registry.timer(id(OP_LATENCY, "command", command, "outcome", outcome, "rack", rack)));
    }
    t.record(nanos, TimeUnit.NANOSECONDS);
  }

  public void retry(String command) {
    counter(OP_RETRIES, "command", command).increment();
  }

  public void failover(String command, String toRack) {
    counter(OP_FAILOVERS, "command", command, "rack", toRack).increment();
  }

  public void consistencySet(String level) {
    counter(CONSISTENCY_SET, "level", level).increment();
  }

  public void nodeHealth(Host host, boolean up) {
    counter(NODE_HEALTH, "node", host.id(), "state", up ? "up" : "down").increment();
  }

  /** For the topology refresher: one refresh finished, successfully or not. */
  public void topologyRefresh(boolean success) {
    counter(TOPOLOGY_REFRESH, "result", success ? "success" : "failure").increment();
  }

  /** Registers a polled gauge; removed by {@link #close()}. */
  public synchronized <T> void gauge(Id id, T obj, ToDoubleFunction<T> fn) {
    PolledMeter.using(registry).withId(id).monitorValue(obj, fn);
    polled.add(id);
  }

  public synchronized void removeGauge(Id id) {
    PolledMeter.remove(registry, id);
    polled.remove(id);
  }

  private Counter counter(String name, String... tags) {
    StringBuilder k = new StringBuilder(name);
    for (String t : tags) {
      k.append('\u0000').append(t);
    }
    String key = k.toString();
    Counter c = counters.get(key);
    if (c == null) {
      c = counters.computeIfAbsent(key, x -> registry.counter(id(name, tags)));
    }
    return c;
  }

  /** Removes the gauges this instance registered. Idempotent. */
  public synchronized void close() {
    for (Id id : polled) {
      PolledMeter.remove(registry, id);
    }
    polled.clear();
  }
}
