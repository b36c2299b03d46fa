package io.dyno.core.exec.internal;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.DeadlineExceededException;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.DynoException;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.PoolTimeoutException;
import io.dyno.core.engine.internal.FailureReport;
import io.dyno.core.engine.internal.NodeConnection;
import io.dyno.core.events.AttemptOutcome;
import io.dyno.core.pool.internal.NodePool;
import io.dyno.core.pool.internal.Pooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a blocking {@link Call} and an {@link AsyncCall} both do to carry out an attempt — the
 * consistency switch, settling a failed attempt's connection and node, returning a connection,
 * recording the call — and the messages of a call that gives up, which {@link CallDecider} words.
 * Nothing here decides whether or where a call goes on.
 */
final class CallRules {
  private static final Logger log = LoggerFactory.getLogger(CallRules.class);

  private CallRules() {}

  /**
   * A failed attempt's connection and node, as the driver's report says: a failure that broke the
   * connection discards it and lowers the node's health; any other keeps it (a command refused
   * unsent, a replica or data error). {@code conn} null: the connection went back already (an
   * asynchronous reply). Tells the listener how the attempt ended. Returns the report.
   */
  static <C extends NodeConnection> FailureReport settle(
      RequestPath<C> path,
      CallEvents events,
      int attempt,
      Host host,
      NodePool<C> pool,
      Pooled<C> conn,
      boolean commandSent,
      Throwable failure) {
    FailureReport report = path.report(failure);
    if (report.sent()) {
      events.attemptFailed(attempt, host, report.kind(), commandSent, failure);
    } else {
      events.attemptEnd(attempt, host, AttemptOutcome.NOT_SENT, failure);
    }
    // A sent command's I/O failure or timeout: the connection may carry a late reply. The
    // node-blame
    // rule is the report's own; only a sent command can break the connection it went on.
    boolean broken = report.sent() && report.blamesNode();
    if (conn != null) {
      if (broken) {
        pool.discard(conn, "broken");
      } else {
        keep(pool, conn);
      }
    }
    if (report.blamesNode() && report.kind() != FailureKind.TIMEOUT) { // timeouts: the decider's
      path.health.failure(host);
    }
    return report;
  }

  /** The call's one {@code dyno.op} sample (tagged with how it ended and the rack of its last node) and the listener's end. */
  static void record(
      RequestPath<?> path, CallEvents events, CallDecider decider, Throwable failure) {
    record(path, events, decider, failure, path.ticker.nanoTime());
  }

  /** As {@link #record(RequestPath, CallEvents, CallDecider, Throwable)}, the call having ended at {@code endNanos} (ticker). */
  static void record(
      RequestPath<?> path,
      CallEvents events,
      CallDecider decider,
      Throwable failure,
      long endNanos) {
    Host h = decider.lastNode();
    long elapsed = endNanos - decider.startNanos();
    path.opTimers.record(
        decider.command(), decider.outcome(), h == null ? "none" : h.rack(), elapsed);
    events.callEnd(failure, elapsed);
  }

  /** Stage 3: the switch is sent only when the connection's level differs from the wanted one. */
  static <C extends NodeConnection> void setConsistency(
      RequestPath<C> path, ConsistencyLevel level, C conn) throws Exception {
    ConsistencyLevel now = conn.consistency();
    // A connection moved off the server default by an earlier call goes back to DC_ONE (Dynomite's
    // default).
    ConsistencyLevel target =
        level != null ? level : (now != null ? ConsistencyLevel.DC_ONE : null);
    if (target != null && target != now) {
      conn.setConsistency(target);
      path.metrics.consistencySet(target.name());
    }
  }

  /**
   * A connection whose run ended without an I/O failure goes back to the pool, first with the
   * socket timeout the call may have capped. One that cannot be reset is discarded instead.
   */
  static <C extends NodeConnection> void keep(NodePool<C> pool, Pooled<C> conn) {
    try {
      conn.restoreReadTimeout();
    } catch (Throwable t) {
      log.debug(
          "could not restore the socket timeout of a connection to {}: {}",
          pool.host(),
          t.toString());
      pool.discard(conn, "broken");
      return;
    }
    pool.release(conn);
  }

  static DynoConnectionException failedOn(
      String command, Host host, FailureKind kind, boolean sent, Throwable t) {
    return new DynoConnectionException(
        command + " failed on " + host + " (" + kind + (sent ? "" : ", before the command was sent")
            + "): " + t,
        host,
        kind,
        t);
  }

  static DynoConnectionException notIdempotent(DynoConnectionException e, String command) {
    return new DynoConnectionException(
        e.getMessage() + "; not retried because " + command
            + " is not idempotent (allow with CallOptions.withRetryNonIdempotent)",
        e.host(),
        e.kind(),
        e.getCause());
  }

  /** Why the call gives up: the last failure, with how far it got. */
  static DynoException giveUp(String command, DynoException last, int runs, int failovers) {
    if (last == null) {
      return new NoAvailableHostsException(command + ": no node could take the command");
    }
    if (runs == 0 && last instanceof PoolTimeoutException) {
      return last; // the clearest message: which pool, how many waiters, how long
    }
    if (last instanceof DynoConnectionException c) {
      DynoConnectionException e = new DynoConnectionException(
          command + " failed after " + runs + " run(s) and " + failovers + " failover(s); last: "
              + c.getMessage(),
          c.host(),
          c.kind(),
          c.getCause());
      for (Throwable s : c.getSuppressed()) {
        e.addSuppressed(s);
      }
      return e;
    }
    return last;
  }

  /** {@code waitingOn}: the node the call was at when time ran out, named when nothing failed. */
  static DeadlineExceededException deadlineExceeded(
      String command, String deadline, int runs, DynoException last, Host waitingOn) {
    return new DeadlineExceededException(
        command + ": " + deadline + " passed after " + runs + " run(s)"
            + (last != null
                ? "; last failure: " + last.getMessage()
                : runs == 0 && waitingOn != null
                    ? " (waiting for a connection to " + waitingOn + ")"
                    : ""),
        runs,
        last);
  }

  /** {@code t} as thrown to the caller of {@code command}: unchecked, wrapped when it is not. */
  static RuntimeException unchecked(String command, Throwable t) {
    return t instanceof RuntimeException r ? r : new DynoException(command + ": " + t, t);
  }

  /** {@code next}, with the failures before it attached. */
  static DynoException chain(DynoException last, DynoException next) {
    if (last != null && last != next) {
      next.addSuppressed(last);
    }
    return next;
  }
}
