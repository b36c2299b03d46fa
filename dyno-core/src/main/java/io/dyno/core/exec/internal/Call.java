package io.dyno.core.exec.internal;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.DynoException;
import io.dyno.core.Host;
import io.dyno.core.PoolTimeoutException;
import io.dyno.core.engine.internal.FailureReport;
import io.dyno.core.engine.internal.NodeConnection;
import io.dyno.core.engine.internal.Operation;
import io.dyno.core.events.AttemptOutcome;
import io.dyno.core.exec.internal.CallDecider.Answer;
import io.dyno.core.pool.internal.NodePool;
import io.dyno.core.pool.internal.Pooled;

/**
 * One blocking call: carries out what its {@link CallDecider} answers, on the caller's thread, and
 * decides nothing itself. Each attempt walks the same stages:
 * <ol>
 *   <li>the decider's answer — run on a node, back off first ({@link io.dyno.core.engine.internal.Sleeper}), or give up
 *   <li>borrow a connection from that node's pool, waiting at most the decider's borrow budget
 *   <li>cap the connection's read timeout as the decider says, switch its consistency level when it differs
 *   <li>run the operation, timing its reply for the node's recent latencies ({@link RecentLatencies})
 *   <li>settle: a success keeps the connection; a failure is reported by the driver
 *       ({@link FailureReport}), which says whether the connection is kept ({@link CallRules#settle}),
 *       and goes to the decider for the next answer
 *   <li>record one {@code dyno.op} sample ({@link Outcome}) and the listener's end
 * </ol>
 * A run that timed out discards its connection, so a late reply never reaches the next borrower.
 * A hedged read is not carried here: one thread cannot wait for two replies, so it is the
 * {@link AsyncCall} waited on, its attempts on the engine's threads ({@link RequestPath#run}).
 */
final class Call<C extends NodeConnection, R> {

  private final RequestPath<C> path;
  private final CallDecider decider; // the call's command, start time and rules
  private final ConsistencyLevel level; // null: the server's default
  private final CallEvents events;
  private Pooled<C> held; // the connection of the run in progress

  Call(RequestPath<C> path, CallDecider decider, ConsistencyLevel level, CallEvents events) {
    this.path = path;
    this.decider = decider;
    this.level = level;
    this.events = events;
  }

  /**
   * Runs the call to its end. One method, the stages in order, so that a success hands its result
   * and its reply's time (the call's end: one clock read less) back in locals, not in fields of a
   * call object that the JIT cannot always take apart.
   */
  R run(Operation<C, R> op) {
    Throwable failure = null; // what the caller gets thrown, for the listener
    long end = 0; // when the successful attempt's reply was read (ticker)
    boolean answered = false;
    try {
      Answer answer = decider.next();
      while (true) {
        if (answer == Answer.BACK_OFF) {
          path.sleeper.sleep(decider.backoffNanos());
        } else if (answer != Answer.RUN) {
          // GIVE_UP (STOP needs a second party, which a blocking call never has)
          throw decider.error();
        }
        Host host = decider.host();
        long budget = decider.borrowBudget();
        if (budget < 0) {
          answer = decider.pastDeadline();
          continue;
        }
        int attempt = events.attemptStart(host, decider.reason());
        NodePool<C> pool = path.pools.pool(host);
        Pooled<C> conn;
        try {
          conn = pool.borrow(budget);
        } catch (PoolTimeoutException | DynoConnectionException e) {
          events.attemptEnd(attempt, host, AttemptOutcome.NOT_SENT, e);
          answer = decider.notSent(e);
          continue;
        }
        long readCapMillis = decider.sending(host);
        if (readCapMillis < 0) {
          pool.release(conn);
          events.attemptEnd(attempt, host, AttemptOutcome.NOT_SENT, null);
          answer = decider.pastDeadline();
          continue;
        }
        boolean sent = false;
        held = conn;
        try {
          if (readCapMillis > 0) {
            conn.capReadTimeout(readCapMillis);
          }
          CallRules.setConsistency(path, level, conn.connection());
          sent = true;
          long sentAt = path.ticker.nanoTime();
          R r = op.run(conn.connection());
          end = path.ticker.nanoTime();
          // the node's recent latencies: steering, hedging at its p99, a silent node's witness
          path.latencies.record(host, end - sentAt, end);
          CallRules.keep(pool, conn);
          decider.succeeded(host, false);
          events.attemptEnd(attempt, host, AttemptOutcome.SUCCESS, null);
          answered = true;
          return r;
        } catch (Throwable t) {
          FailureReport report = CallRules.settle(path, events, attempt, host, pool, conn, sent, t);
          answer = decider.failed(host, report, sent, t);
        } finally {
          held = null;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      DynoException interrupted =
          new DynoException(decider.command() + ": interrupted while waiting to retry", e);
      decider.end(interrupted);
      failure = interrupted;
      throw interrupted;
    } catch (RuntimeException | Error e) {
      failure = e;
      throw e;
    } finally {
      CallRules.record(path, events, decider, failure, answered ? end : path.ticker.nanoTime());
    }
  }

  /**
   * For an operation that waited on other work after it started (a scattered call's part): caps
   * the read timeout of the connection it holds so that its read ends by the call's deadline. No
   * effect outside a run or without a deadline.
   */
  void capReadTimeoutAtDeadline() throws Exception {
    Pooled<C> conn = held;
    long capMillis = conn == null ? 0 : decider.readCapNow();
    if (capMillis > 0 && capMillis < conn.readTimeoutMillis()) {
      conn.capReadTimeout(capMillis);
    }
  }
}
