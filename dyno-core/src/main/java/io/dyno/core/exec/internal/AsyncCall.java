package io.dyno.core.exec.internal;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.DeadlineExceededException;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.DynoException;
import io.dyno.core.Host;
import io.dyno.core.PoolTimeoutException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.events.AttemptOutcome;
import io.dyno.core.exec.AsyncOperation;
import io.dyno.core.pool.internal.NodePool;
import io.dyno.core.pool.internal.Pooled;
import io.dyno.core.spi.FailureKind;
import io.dyno.core.spi.NodeConnection;
import io.dyno.core.time.Scheduler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * One call through the request path that does not hold its caller while a reply is on its way:
 * the asynchronous twin of {@link Call}, with the same stages and rules (choose a replica, borrow,
 * set consistency, cap the read timeout, run, classify, retry or fail over, record), plus hedging.
 *
 * <p>What differs: an attempt's connection goes back to its pool as soon as the command is handed
 * to the transport (the multiplexed transport carries the reply on its shared connection); its
 * reply, on the transport's I/O thread, settles the attempt. A blocking transport answers before
 * {@link AsyncOperation#start} returns: that attempt is then settled with its connection held, so
 * a broken one is discarded as in {@link Call}. Waits never block a thread: a backoff is a
 * scheduled task, and every step that may block (a borrow, a connect) runs on the caller's thread
 * for the first attempt and on the engine's I/O executor afterwards, never on the transport's.
 *
 * <p>Hedging (reads only, {@link HedgePolicy}): when the first attempt has no answer after the
 * policy's delay and an untried replica is left, the read is also sent there; the first success
 * completes the call, a later answer is dropped and counted. A failed attempt leaves the decision
 * to one still out.
 *
 * <p>Who continues the call: {@code pending} counts the parties that will act on it again — the
 * thread walking the stages, each attempt in flight, a scheduled backoff. A failure that leaves
 * another party pending stops there; the last one decides (retry, fail over, give up). All state
 * is guarded by {@code this}; the result is completed outside the lock, as its callbacks run
 * inline. Each attempt's start and end, and the call's, go to the call's listener
 * ({@link CallEvents}), outside the lock too.
 */
final class AsyncCall<C extends NodeConnection, R> {

  /**
   * What one attempt, or one pass of the stages, left to do: it is in flight; another may go
   * elsewhere (RETRY_UNSENT: nothing was sent, only an untried replica); another may go anywhere,
   * the same node included (RETRY_SENT, or RESEND for an unsent command whose connection closed
   * under it); the call has ended.
   */
  private enum Step { IN_FLIGHT, RETRY_UNSENT, RETRY_SENT, RESEND, ENDED }

  private final RequestPath<C> path;
  private final DynoConfig cfg;
  private final String command;
  private final ReplicaChooser replicas;
  private final ConsistencyLevel level;
  private final boolean rerunUnknown;
  private final HedgePolicy hedging; // null: this call is not hedged
  private final RetryPolicy policy;
  private final long startNanos;
  private final long deadlineAt;
  private final Duration deadline;
  private final AsyncOperation<C, R> op;
  private final CallEvents events;
  private final CompletableFuture<R> result = new CompletableFuture<>();

  // guarded by this
  private int pending = 1; // the thread that starts the call
  private int runs;
  private int reruns;
  private int unsent;
  private DynoException last;
  private Outcome outcome = Outcome.ERROR;
  private Host lastHost;
  private boolean finished;
  private boolean hedgeSent;
  private Scheduler.Cancellable hedgeTimer;

  AsyncCall(RequestPath<C> path, DynoConfig cfg, String command, List<Host> candidates, ConsistencyLevel level,
      boolean rerunUnknown, HedgePolicy hedging, long startNanos, long deadlineAt, Duration deadline,
      AsyncOperation<C, R> op, CallEvents events) {
    this.path = path;
    this.cfg = cfg;
    this.command = command;
    this.replicas = new ReplicaChooser(candidates);
    this.level = level;
    this.rerunUnknown = rerunUnknown;
    this.hedging = hedging != null && hedging.enabled() ? hedging : null;
    this.policy = cfg.retryPolicy();
    this.startNanos = startNanos;
    this.deadlineAt = deadlineAt;
    this.deadline = deadline;
    this.op = op;
    this.events = events;
  }

  CompletableFuture<R> start() {
    if (path.onTransportThread()) {
      handOff(() -> proceed(false, ReplicaChooser.NONE));
    } else {
      proceed(false, ReplicaChooser.NONE);
    }
    return result;
  }

  /**
   * Walks the stages until an attempt is in flight, a backoff is scheduled or the call has ended.
   * {@code chosen}: a replica already chosen (after a backoff), else {@link ReplicaChooser#NONE}.
   */
  private void proceed(boolean mayRerun, int chosen) {
    try {
      int node = chosen;
      while (true) {
        if (node == ReplicaChooser.NONE) {
          node = choose(mayRerun);
          if (node == ReplicaChooser.NONE) {
            return;
          }
        }
        Step step = send(node, false);
        node = ReplicaChooser.NONE;
        if (step == Step.IN_FLIGHT || step == Step.ENDED) {
          return;
        }
        mayRerun = step != Step.RETRY_UNSENT;
      }
    } catch (RuntimeException | Error e) {
      // A bug or a failing classifier must still end the call, never leave its future hanging.
      fail(e instanceof DynoException d ? d : new DynoException(command + ": " + e, e));
    }
  }

  /**
   * Continues the call on the engine's I/O executor. Until the task starts the call is in the
   * path's waiting set, so that an engine that closes and drops queued tasks still ends it.
   */
  private void handOff(Runnable step) {
    path.waiting.add(this);
    try {
      path.io.execute(() -> {
        path.waiting.remove(this);
        step.run();
      });
    } catch (RuntimeException rejected) {
      path.waiting.remove(this);
      fail(new DynoException(command + ": the Dyno engine closed before the call finished", rejected));
    }
  }

  /** The engine closed while this call waited for a backoff or for a thread to continue it. */
  void engineClosed() {
    fail(new DynoException(command + ": the Dyno engine closed before the call finished"));
  }

  /** Stage 1: the next replica, or NONE when the call ended or a backoff will resume it. */
  private int choose(boolean mayRerun) {
    DynoException end;
    synchronized (this) {
      if (finished) {
        pending--;
        return ReplicaChooser.NONE;
      }
      int next = replicas.next(path.health, cfg.maxFailoverCount(), mayRerun);
      if (next == ReplicaChooser.NONE) {
        end = giveUp();
      } else {
        boolean rerun = replicas.wasTried(next);
        if (replicas.moveTo(next)) {
          path.metrics.failover(command, replicas.host(next).rack());
        }
        long now = path.ticker.nanoTime();
        long wait = rerun ? policy.backoffNanos(++reruns, path.random) : 0;
        if (wait > 0) {
          if (deadlineAt - now <= wait) {
            end = deadlineExceeded();
          } else {
            path.waiting.add(this); // until the task runs: an engine closing meanwhile ends the call
            path.scheduler.schedule(() -> handOff(() -> proceed(true, next)), Duration.ofNanos(wait));
            return ReplicaChooser.NONE; // the scheduled task is now the pending party
          }
        } else if (now - deadlineAt >= 0) {
          end = deadlineExceeded();
        } else {
          return next;
        }
      }
    }
    fail(end);
    return ReplicaChooser.NONE;
  }

  /** Stages 2–4 on replica {@code node}, then stage 5 at once when the reply is already there. */
  private Step send(int node, boolean hedge) {
    Host host = replicas.host(node);
    NodePool<C> pool = path.pools.pool(host);
    long left = deadlineAt - path.ticker.nanoTime();
    if (left <= 0) {
      return pastDeadline();
    }
    int attempt = events.attemptStart(host, hedge);
    Pooled<C> conn;
    try {
      conn = pool.borrow(Math.min(cfg.maxTimeoutWhenExhausted().toNanos(), left));
    } catch (PoolTimeoutException | DynoConnectionException e) {
      events.attemptEnd(attempt, host, AttemptOutcome.NOT_SENT, e);
      return unsent(e, false);
    }
    long capMillis;
    synchronized (this) {
      capMillis = finished ? -1 : CallRules.readTimeoutCapMillis(deadlineAt, path.ticker.nanoTime(), rerunUnknown,
          runs, policy, replicas, cfg);
      if (capMillis >= 0) {
        runs++;
        lastHost = host;
      }
    }
    if (capMillis < 0) {
      pool.release(conn);
      events.attemptEnd(attempt, host, AttemptOutcome.NOT_SENT, null);
      return pastDeadline();
    }
    boolean sent = false;
    long sentAt = 0;
    CompletableFuture<R> reply;
    try {
      if (capMillis > 0) {
        conn.capReadTimeout(capMillis);
      }
      setConsistency(conn.connection());
      sent = true;
      sentAt = path.ticker.nanoTime();
      reply = op.start(conn.connection());
      if (reply == null) {
        throw new IllegalStateException(command + ": the operation returned no future");
      }
    } catch (Throwable t) {
      return failed(attempt, host, pool, conn, sent, t);
    }
    if (reply.isDone()) {
      // A blocking transport: settle now, with the connection still held.
      Throwable t = failureOf(reply);
      if (t != null) {
        return failed(attempt, host, pool, conn, true, t);
      }
      keep(pool, conn);
      succeeded(attempt, host, hedge, sentAt, reply.join());
      return Step.ENDED;
    }
    keep(pool, conn); // the shared connection carries the reply; the lease is free for others
    long at = sentAt;
    reply.whenComplete((r, t) -> onReply(attempt, host, hedge, at, r, t));
    if (!hedge) {
      scheduleHedge(host);
    }
    return Step.IN_FLIGHT;
  }

  /** An attempt's reply arrived (the transport's I/O thread). */
  private void onReply(int attempt, Host host, boolean hedge, long sentAt, R reply, Throwable t) {
    try {
      if (t == null) {
        succeeded(attempt, host, hedge, sentAt, reply);
        return;
      }
      Step step = failed(attempt, host, null, null, true, t);
      if (step == Step.RETRY_SENT || step == Step.RETRY_UNSENT || step == Step.RESEND) {
        handOff(() -> proceed(step != Step.RETRY_UNSENT, ReplicaChooser.NONE));
      }
    } catch (RuntimeException | Error e) {
      fail(e instanceof DynoException d ? d : new DynoException(command + ": " + e, e));
    }
  }

  private void succeeded(int attempt, Host host, boolean hedge, long sentAt, R reply) {
    path.latencies.record(host, path.ticker.nanoTime() - sentAt);
    boolean won; // only the answer that completes the call is its SUCCESS; a later one is DISCARDED
    synchronized (this) {
      pending--;
      won = !finished;
      if (!won) {
        if (hedgeSent) {
          path.metrics.hedge(command, "discarded");
        }
      } else {
        finished = true;
        outcome = Outcome.SUCCESS;
        if (hedge) {
          path.metrics.hedge(command, "won");
        }
        cancelHedgeTimer();
      }
    }
    events.attemptEnd(attempt, host, won ? AttemptOutcome.SUCCESS : AttemptOutcome.DISCARDED, null);
    if (won) {
      record(null);
      result.complete(reply);
    }
  }

  /**
   * Stages 5 and 6 for a failed attempt: classify, keep or discard a held connection, mark the node,
   * then — if no other party is pending — decide whether the call goes on.
   */
  private Step failed(int attempt, Host host, NodePool<C> pool, Pooled<C> conn, boolean sent, Throwable failure) {
    Throwable t = unwrap(failure);
    if (sent && path.refusedUnsent(t)) {
      events.attemptEnd(attempt, host, AttemptOutcome.NOT_SENT, t);
      if (conn != null) {
        keep(pool, conn);
      }
      synchronized (this) {
        runs--;
      }
      return unsent(CallRules.failedOn(command, host, FailureKind.CONNECTION, false, t),
          path.resendableToSameNode(t));
    }
    FailureKind kind = path.classify(t);
    events.attemptFailed(attempt, host, kind, sent, t);
    boolean nodeFault = kind != FailureKind.DATA && kind != FailureKind.REPLICA;
    if (conn != null) {
      if (nodeFault) {
        pool.discard(conn, "broken");
      } else {
        keep(pool, conn);
      }
    }
    if (nodeFault) {
      path.health.failure(host);
    }
    Throwable end;
    synchronized (this) {
      if (finished) {
        pending--;
        if (hedgeSent) {
          path.metrics.hedge(command, "discarded");
        }
        return Step.ENDED;
      }
      if (!sent) {
        runs--; // the consistency switch failed: the command itself never ran
      }
      if (kind == FailureKind.DATA) {
        pending--;
        outcome = Outcome.DATA_ERROR;
        end = t instanceof RuntimeException ? t : new DynoException(command + ": " + t, t);
      } else {
        DynoConnectionException e = CallRules.failedOn(command, host, kind, sent, t);
        last = chain(last, e);
        if (pending > 1) {
          pending--; // another attempt is still out: it decides
          return Step.ENDED;
        }
        if (sent && !rerunUnknown) {
          outcome = Outcome.ofLastFailure(last);
          end = CallRules.notIdempotent(e, command);
        } else if (sent ? runs >= policy.maxAttempts() : CallRules.unsentBudgetSpent(++unsent, replicas, policy)) {
          end = giveUp();
        } else {
          if (sent) {
            path.metrics.retry(command);
            if (!policy.allowCrossRackFallback()) {
              replicas.stayInRack(host.rack());
            }
          }
          return sent ? Step.RETRY_SENT : Step.RETRY_UNSENT;
        }
      }
    }
    fail(end);
    return Step.ENDED;
  }

  /**
   * A failure before anything was sent (borrow, connect, refused at capacity, connection closed
   * first): another replica may take it, or with {@code sameNodeToo} the same node again.
   */
  private Step unsent(DynoException e, boolean sameNodeToo) {
    DynoException end;
    synchronized (this) {
      last = chain(last, e);
      if (finished || pending > 1) {
        pending--;
        return Step.ENDED;
      }
      if (!CallRules.unsentBudgetSpent(++unsent, replicas, policy)) {
        return sameNodeToo ? Step.RESEND : Step.RETRY_UNSENT;
      }
      end = giveUp();
    }
    fail(end);
    return Step.ENDED;
  }

  /** The call ended meanwhile, or its deadline passed before this attempt could be sent. */
  private Step pastDeadline() {
    DeadlineExceededException e;
    synchronized (this) {
      if (finished || pending > 1) {
        pending--;
        return Step.ENDED;
      }
      e = deadlineExceeded();
    }
    fail(e);
    return Step.ENDED;
  }

  /** Hedging: after the policy's delay, the read goes to an untried replica too, if it still has no answer. */
  private void scheduleHedge(Host host) {
    if (hedging == null) {
      return;
    }
    long delay = hedging.delayNanos(hedging.followsNodeP99() ? path.latencies.p99(host) : 0);
    synchronized (this) {
      if (finished || hedgeSent || hedgeTimer != null || !replicas.hasUntried()
          || path.ticker.nanoTime() + delay - deadlineAt >= 0) {
        return;
      }
      hedgeTimer = path.scheduler.schedule(() -> path.io.execute(this::sendHedge), Duration.ofNanos(delay));
    }
  }

  private void sendHedge() {
    int node;
    synchronized (this) {
      if (finished || hedgeSent || replicas.failovers() >= cfg.maxFailoverCount()) {
        return;
      }
      node = replicas.next(path.health, cfg.maxFailoverCount(), false);
      if (node == ReplicaChooser.NONE || replicas.wasTried(node)) {
        return;
      }
      replicas.moveTo(node);
      hedgeSent = true;
      pending++; // the hedge is a party of its own
      path.metrics.hedge(command, "sent");
    }
    try {
      Step step = send(node, true);
      if (step == Step.RETRY_SENT || step == Step.RETRY_UNSENT || step == Step.RESEND) {
        proceed(step != Step.RETRY_UNSENT, ReplicaChooser.NONE); // the first attempt failed meanwhile: go on from here
      }
    } catch (RuntimeException | Error e) {
      fail(e instanceof DynoException d ? d : new DynoException(command + ": " + e, e));
    }
  }

  private void cancelHedgeTimer() {
    if (hedgeTimer != null) {
      hedgeTimer.cancel();
      hedgeTimer = null;
    }
  }

  private void setConsistency(C conn) throws Exception {
    CallRules.setConsistency(path, level, conn);
  }

  private void keep(NodePool<C> pool, Pooled<C> conn) {
    CallRules.keep(pool, conn);
  }

  /** Ends the call with {@code e} unless it has ended already. */
  private void fail(Throwable e) {
    synchronized (this) {
      if (finished) {
        return;
      }
      finished = true;
      if (e instanceof DeadlineExceededException) {
        outcome = Outcome.DEADLINE_EXCEEDED;
      } else if (outcome == Outcome.SUCCESS) {
        outcome = Outcome.ERROR;
      }
      cancelHedgeTimer();
    }
    record(e);
    result.completeExceptionally(e);
  }

  /** Stage 7: one sample per call; the listener's end ({@code failure} null: success). */
  private void record(Throwable failure) {
    Host h;
    Outcome o;
    synchronized (this) {
      h = lastHost;
      o = outcome;
    }
    long elapsed = path.ticker.nanoTime() - startNanos;
    path.metrics.op(command, o.tag(), h == null ? "none" : h.rack(), elapsed);
    events.callEnd(failure, elapsed);
  }

  private DynoException giveUp() {
    outcome = Outcome.ofLastFailure(last);
    return CallRules.giveUp(command, last, runs, replicas.failovers());
  }

  private DeadlineExceededException deadlineExceeded() {
    outcome = Outcome.DEADLINE_EXCEEDED;
    return CallRules.deadlineExceeded(command, deadline, runs, last);
  }

  private static Throwable failureOf(CompletableFuture<?> done) {
    if (!done.isCompletedExceptionally()) {
      return null;
    }
    try {
      done.join();
      return null;
    } catch (CompletionException | java.util.concurrent.CancellationException e) {
      return e;
    }
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private static DynoException chain(DynoException last, DynoException next) {
    return CallRules.chain(last, next);
  }
}
