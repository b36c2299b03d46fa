package io.dyno.core.metrics;

import java.util.List;

/**
 * The names of Dyno's Spectator meters: stable, prefixed {@code dyno.}; every meter carries the tag
 * {@code app} (the configured application name). The constants below are the whole list. Meters are
 * recorded to the registry given to the client ({@code DynoJedisClientBuilder.registry}); the
 * recording side is internal.
 */
public final class DynoMetrics {
  /**
   * PercentileTimer: time to obtain a connection, every borrow (one that found a free connection at
   * once counts as 0 ns and reaches the timer within one maintenance interval, see
   * {@code metrics.internal.BorrowDelay}). Tags: app, node, rack.
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
  /**
   * Counter: hedged reads. Tags: app, command, result — {@code sent} (a read was also sent to the next
   * replica), {@code won} (the hedge answered first), {@code discarded} (an answer that came after the
   * call had its result, dropped).
   */
  public static final String HEDGES = "dyno.hedge";
  /** Counter: {@code DYNO_CONFIG:CONN_CONSISTENCY} sent. Tags: app, level. */
  public static final String CONSISTENCY_SET = "dyno.consistency.set";
  /** Gauge: nodes taking traffic. Tags: app. */
  public static final String NODES_UP = "dyno.nodes.up";
  /** Gauge: nodes out of rotation (repeated failures, silence) or not in Dynomite state NORMAL. Tags: app. */
  public static final String NODES_DOWN = "dyno.nodes.down";
  /** Counter: health transitions. Tags: app, node, state (down, up). */
  public static final String NODE_HEALTH = "dyno.node.health";
  /** Counter: topology refreshes. Tags: app, result (success, failure). */
  public static final String TOPOLOGY_REFRESH = "dyno.topology.refresh";
  /**
   * PercentileTimer, multiplexed transport only: how long a request waited before it went on the
   * wire, from its submit to the write that carried it (any wait for the in-flight limit, then the
   * wait for the next coalesced write: for the write in flight to be answered, under
   * {@code muxMaxWritesInFlight}, and for the event loop). The multiplexed counterpart of
   * {@link #POOL_BORROW}. Tags: app, node, rack.
   */
  public static final String MUX_QUEUE_DELAY = "dyno.mux.queue.delay";
  /** Gauge, multiplexed transport: requests written and not yet answered, over a node's connections. Tags: app, node, rack. */
  public static final String MUX_IN_FLIGHT = "dyno.mux.inflight";
  /** Gauge, multiplexed transport: requests submitted and not yet written. Tags: app, node, rack. */
  public static final String MUX_QUEUED = "dyno.mux.queued";
  /**
   * DistributionSummary, multiplexed transport: commands per write (socket flush) to a node, the
   * implicit pipeline's depth; its mean is what the server saves per command. Tags: app, node, rack.
   */
  public static final String MUX_WRITE_COMMANDS = "dyno.mux.write.commands";
  /**
   * Counter, multiplexed transport: requests that waited for room under the in-flight limit and
   * gave up, unsent (the counterpart of {@link #POOL_BORROW_TIMEOUTS}). Tags: app, node, rack.
   */
  public static final String MUX_IN_FLIGHT_LIMIT_TIMEOUTS = "dyno.mux.inflight.limit.timeouts";

  /** All meter names, for documentation and tests. */
  public static final List<String> ALL = List.of(
      POOL_BORROW,
      POOL_BORROW_TIMEOUTS,
      POOL_SIZE,
      POOL_ACTIVE,
      POOL_IDLE,
      POOL_WAITERS,
      CONNECTIONS_CREATED,
      CONNECTIONS_FAILED,
      CONNECTIONS_CLOSED,
      OP_LATENCY,
      OP_RETRIES,
      OP_FAILOVERS,
      CONSISTENCY_SET,
      NODES_UP,
      NODES_DOWN,
      NODE_HEALTH,
      TOPOLOGY_REFRESH,
      MUX_QUEUE_DELAY,
      MUX_IN_FLIGHT,
      MUX_QUEUED,
      MUX_WRITE_COMMANDS,
      MUX_IN_FLIGHT_LIMIT_TIMEOUTS);

  private DynoMetrics() {}
}
