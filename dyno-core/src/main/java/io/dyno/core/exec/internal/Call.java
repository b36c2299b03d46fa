package io.dyno.core.exec.internal;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.DeadlineExceededException;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.DynoException;
import io.dyno.core.Host;
import io.dyno.core.PoolTimeoutException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.events.AttemptOutcome;
import io.dyno.core.exec.Operation;
import io.dyno.core.pool.internal.NodePool;
import io.dyno.core.pool.internal.Pooled;
import io.dyno.core.spi.FailureKind;
import io.dyno.core.spi.NodeConnection;
import java.time.Duration;
import java.util.List;

/**
 * One call through the request path. Routing was decided before (the candidates, in preference
 * order, come from the plan); the stages here, one method each:
 * <ol>
 *   <li>{@link #chooseReplica} — which candidate next ({@link ReplicaChooser}); backoff before a re-run
 *   <li>{@link #acquire} — borrow a connection from that node's pool
 *   <li>{@link #setConsistency} — switch the connection's consistency level when it differs
 *   <li>{@link #runOnce} — run the operation, its reads bounded by the time left ({@link #readTimeoutCap})
 *   <li>{@link #settle} — classify a failure; keep or discard the connection, mark the node
 *   <li>{@link #retryOrFailOver} — decide whether another attempt may follow, or give up
 *   <li>{@link #record} — one {@code dyno.op} sample with the {@link Outcome}
 * </ol>
 * Each attempt's start and end, and the call's, go to the call's listener ({@link CallEvents}).
 *
 * <p>Rules: a failure before the command was sent (borrow timeout, connect failure, draining node,
 * consistency switch failure, a connection refusing it at capacity) moves on to the next replica
 * whatever the command; a failure after it was sent is re-run only for idempotent commands (or when
 * allowed), within the retry policy's attempts. Each move to another node counts against
 * {@code maxFailoverCount}. Re-running on a node already tried waits the policy's backoff. No borrow,
 * backoff or new attempt starts after the deadline. With a deadline, each run's read timeout
 * ({@link NodeConnection#setReadTimeout}) is capped at the time left — at half of it when the call
 * could still move on to an untried replica, so that a hung node leaves the other half for the
 * failover; a run that timed out discards its connection (a late reply must never reach the next
 * borrower).
 */
final class Call<C extends NodeConnection, R> {

  private final RequestPath<C> path;
  private final DynoConfig cfg;
  private final String command;
  private final ReplicaChooser replicas;
  private final ConsistencyLevel level; // null: the server's default
  private final boolean rerunUnknown; // may run again after a failure whose effect is unknown
  private final RetryPolicy policy;
  private final long startNanos;
  private final long deadlineAt; // ticker time; Long.MAX_VALUE: none
  private final Duration deadline; // for messages
  private final CallEvents events;

  private int current = ReplicaChooser.NONE;
  private int attempt; // the listener's number of the attempt in progress
  private int runs;
  private int reruns;
  private int unsent;
  private DynoException last;
  private Outcome outcome = Outcome.ERROR;
  private Pooled<C> held; // the connection of the run in progress

  Call(RequestPath<C> path, DynoConfig cfg, String command, List<Host> candidates, ConsistencyLevel level,
      boolean rerunUnknown, long startNanos, long deadlineAt, Duration deadline, CallEvents events) {
    this.path = path;
    this.cfg = cfg;
    this.command = command;
    this.replicas = new ReplicaChooser(candidates);
    this.level = level;
    this.rerunUnknown = rerunUnknown;
    this.policy = cfg.retryPolicy();
    this.startNanos = startNanos;
    this.deadlineAt = deadlineAt;
    this.deadline = deadline;
    this.events = events;
  }

  R run(Operation<C, R> op) {
    Throwable failure = null; // what the caller gets thrown, for the listener
    try {
      boolean mayRerun = false;
      while (true) {
        chooseReplica(mayRerun);
        attempt = events.attemptStart(host(), false);
        NodePool<C> pool = path.pools.pool(host());
        Pooled<C> conn = acquire(pool);
        if (conn == null) {
          mayRerun = false; // never sent: another replica may take it, whatever the command
          continue;
        }
        long readCapMillis = readTimeoutCap(pool, conn);
        boolean sent = false;
        try {
          held = conn;
          if (readCapMillis > 0) {
            conn.capReadTimeout(readCapMillis);
          }
          setConsistency(conn.connection());
          sent = true;
          R result = runOnce(conn, op);
          keep(pool, conn);
          outcome = Outcome.SUCCESS;
          events.attemptEnd(attempt, host(), AttemptOutcome.SUCCESS, null);
          return result;
        } catch (Throwable t) {
          if (sent && path.refusedUnsent(t)) {
            refusedUnsent(pool, conn, t);
            // Never sent, as after a pool timeout: another replica may take it; the same node too
            // when only its connection closed under it (the unsent budget bounds the re-runs).
            mayRerun = path.resendableToSameNode(t);
            continue;
          }
          FailureKind kind = settle(pool, conn, t, sent);
          retryOrFailOver(kind, t, sent);
          mayRerun = true;
        } finally {
          held = null;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      outcome = Outcome.ERROR;
      DynoException interrupted = new DynoException(command + ": interrupted while waiting to retry", e);
      failure = interrupted;
      throw interrupted;
    } catch (RuntimeException | Error e) {
      failure = e;
      throw e;
    } finally {
      record(failure);
    }
  }

  /** Stage 1: the next candidate; gives up when none is left, waits the backoff before a re-run. */
  private void chooseReplica(boolean mayRerun) throws InterruptedException {
    int next = replicas.next(path.health, cfg.maxFailoverCount(), mayRerun);
    if (next == ReplicaChooser.NONE) {
      throw giveUp();
    }
    boolean rerun = replicas.wasTried(next);
    if (replicas.moveTo(next)) {
      path.metrics.failover(command, replicas.host(next).rack());
    }
    current = next;
    if (rerun) {
      long wait = policy.backoffNanos(++reruns, path.random);
      if (wait > 0) {
        if (deadlineAt - path.ticker.nanoTime() <= wait) {
          throw deadlineExceeded();
        }
        path.sleeper.sleep(wait);
      }
    }
    if (path.ticker.nanoTime() - deadlineAt >= 0) {
      throw deadlineExceeded();
    }
  }

  /** Stage 2: a connection to the chosen node, or null when none could be had (the failure is kept). */
  private Pooled<C> acquire(NodePool<C> pool) {
    long left = deadlineAt - path.ticker.nanoTime();
    try {
      return pool.borrow(Math.min(cfg.maxTimeoutWhenExhausted().toNanos(), left));
    } catch (PoolTimeoutException | DynoConnectionException e) {
      events.attemptEnd(attempt, host(), AttemptOutcome.NOT_SENT, e);
      last = chain(last, e);
      if (CallRules.unsentBudgetSpent(++unsent, replicas, policy)) {
        throw giveUp();
      }
      return null;
    }
  }

  /**
   * Before a run: the read timeout that bounds it by the time left (half of it while an untried
   * replica could still take the call, so a hung node cannot eat the whole deadline); 0 without a
   * deadline. Past the deadline the connection goes back unused and the call ends.
   */
  private long readTimeoutCap(NodePool<C> pool, Pooled<C> conn) {
    long cap = CallRules.readTimeoutCapMillis(deadlineAt, path.ticker.nanoTime(), rerunUnknown, runs, policy,
        replicas, cfg);
    if (cap < 0) {
      pool.release(conn);
      events.attemptEnd(attempt, host(), AttemptOutcome.NOT_SENT, null);
      throw deadlineExceeded();
    }
    return cap;
  }

  /**
   * For an operation that waited on other work after it started (a scattered call's part): caps
   * the read timeout of the connection it holds at the time left of the whole call. No effect
   * outside a run or without a deadline.
   */
  void capReadTimeoutAtDeadline() throws Exception {
    Pooled<C> conn = held;
    if (conn == null || deadlineAt == Long.MAX_VALUE) {
      return;
    }
    long leftMillis = Math.max(1, (deadlineAt - path.ticker.nanoTime() + 999_999) / 1_000_000);
    if (leftMillis < conn.readTimeoutMillis()) {
      conn.capReadTimeout(leftMillis);
    }
  }

  /** Stage 3: the switch is sent only when the connection's level differs from the wanted one. */
  private void setConsistency(C conn) throws Exception {
    CallRules.setConsistency(path, level, conn);
  }

  /** Stage 4: the operation itself. */
  private R runOnce(Pooled<C> conn, Operation<C, R> op) throws Exception {
    runs++;
    return op.run(conn.connection());
  }

  /**
   * Stage 5: what the failure means. A data error is the caller's (thrown now, connection kept);
   * a replica error keeps the connection; anything else discards it and lowers the node's health.
   */
  private FailureKind settle(NodePool<C> pool, Pooled<C> conn, Throwable t, boolean sent) {
    FailureKind kind = path.classify(t);
    events.attemptFailed(attempt, host(), kind, sent, t);
    if (kind == FailureKind.DATA) {
      keep(pool, conn);
      outcome = Outcome.DATA_ERROR;
      throw asUnchecked(t);
    }
    if (kind == FailureKind.REPLICA) {
      keep(pool, conn);
    } else {
      pool.discard(conn, "broken");
      path.health.failure(host());
    }
    return kind;
  }

  /**
   * Stages 5 and 6 for a run the connection refused at capacity before sending anything (the
   * multiplexed transport's in-flight limit): a pool timeout in all but name. The run does not
   * count, the connection goes back, the node's health is untouched; the next replica may take the
   * command whatever its idempotency.
   */
  private void refusedUnsent(NodePool<C> pool, Pooled<C> conn, Throwable t) {
    events.attemptEnd(attempt, host(), AttemptOutcome.NOT_SENT, t);
    runs--;
    keep(pool, conn);
    Host host = host();
    last = chain(last, CallRules.failedOn(command, host, FailureKind.CONNECTION, false, t));
    if (CallRules.unsentBudgetSpent(++unsent, replicas, policy)) {
      throw giveUp();
    }
  }

  /** Stage 6: another attempt may follow (returns), or the call gives up (throws). */
  private void retryOrFailOver(FailureKind kind, Throwable t, boolean sent) {
    Host host = host();
    DynoConnectionException e = CallRules.failedOn(command, host, kind, sent, t);
    last = chain(last, e);
    if (sent && !rerunUnknown) {
      outcome = Outcome.ofLastFailure(last);
      throw CallRules.notIdempotent(e, command);
    }
    if (sent ? runs >= policy.maxAttempts() : CallRules.unsentBudgetSpent(++unsent, replicas, policy)) {
      throw giveUp();
    }
    if (sent) {
      path.metrics.retry(command);
      if (!policy.allowCrossRackFallback()) {
        replicas.stayInRack(host.rack()); // the command may have run: re-run it here, never in another rack
      }
    }
  }

  /** Stage 7: one sample per call, tagged with how it ended and the rack of the last node tried; the listener's end. */
  private void record(Throwable failure) {
    String rack = current == ReplicaChooser.NONE ? "none" : host().rack();
    long elapsed = path.ticker.nanoTime() - startNanos;
    path.metrics.op(command, outcome.tag(), rack, elapsed);
    events.callEnd(failure, elapsed);
  }

  private void keep(NodePool<C> pool, Pooled<C> conn) {
    CallRules.keep(pool, conn);
  }

  private Host host() {
    return replicas.host(current);
  }

  private DynoException giveUp() {
    outcome = Outcome.ofLastFailure(last);
    return CallRules.giveUp(command, last, runs, replicas.failovers());
  }

  private DeadlineExceededException deadlineExceeded() {
    outcome = Outcome.DEADLINE_EXCEEDED;
    return CallRules.deadlineExceeded(command, deadline, runs, last);
  }

  private RuntimeException asUnchecked(Throwable t) {
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new DynoException(command + ": " + t, t);
  }

  private static DynoException chain(DynoException last, DynoException next) {
    return CallRules.chain(last, next);
  }
}
