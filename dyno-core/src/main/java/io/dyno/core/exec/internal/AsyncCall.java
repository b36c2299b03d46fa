package io.dyno.core.exec.internal;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.DynoException;
import io.dyno.core.Host;
import io.dyno.core.PoolTimeoutException;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.engine.internal.AsyncOperation;
import io.dyno.core.engine.internal.FailureReport;
import io.dyno.core.engine.internal.NodeConnection;
import io.dyno.core.events.AttemptOutcome;
import io.dyno.core.events.AttemptReason;
import io.dyno.core.exec.internal.CallDecider.Answer;
import io.dyno.core.pool.internal.NodePool;
import io.dyno.core.pool.internal.Pooled;
import io.dyno.core.time.Scheduler;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * One call that does not hold its caller while a reply is on its way: carries out what its
 * {@link CallDecider} answers, as {@link Call} does, and decides nothing itself.
 *
 * <p>What differs from the blocking call: an attempt's connection goes back to its pool as soon as
 * the command is handed to the transport (the multiplexed transport carries the reply on its shared
 * connection); its reply, on the transport's I/O thread, settles the attempt. A blocking transport
 * answers before {@link AsyncOperation#start} returns: that attempt is then settled with its
 * connection held, so a broken one is discarded. Waits never block a thread: a backoff is a
 * scheduled task, and every step that may block (a borrow, a connect) runs on the caller's thread
 * for the first attempt and on the engine's I/O executor afterwards, never on the transport's.
 *
 * <p>Hedging ({@link HedgePolicy}, reads only): after the first attempt is sent, the decider says
 * how long to wait for its answer; when the timer fires it may answer HEDGE, and the read goes to
 * that node too. The first success completes the call; a later answer is dropped and counted. When
 * an attempt holds its thread until the reply ({@code attemptsBlock}: a blocking operation, or a
 * transport that blocks), a hedged call runs every attempt on the path's attempt threads, the first
 * one included, and starts the hedge timer as the attempt is about to be sent: so a blocking call
 * is this call waited on ({@link #await}), free to take the hedge's answer while the first attempt
 * still reads.
 *
 * <p>The decider is guarded by {@code this}: attempts, the hedge timer and the caller act on the
 * call at once. Each answer is read with what goes with it ({@link Step}) under the lock. The
 * result is completed outside the lock, as its callbacks run inline; so are the listener's events
 * ({@link CallEvents}).
 */
final class AsyncCall<C extends NodeConnection, R> {

  /** One answer of the decider and what it names, read together under the lock. */
  private record Step(
      Answer answer, Host host, AttemptReason reason, long backoffNanos, RuntimeException error) {}

  private final RequestPath<C> path;
  private final String command;
  private final CallDecider decider; // guarded by this
  private final ConsistencyLevel level;
  private final AsyncOperation<C, R> op;
  private final CallEvents events;
  private final CompletableFuture<R> result = new CompletableFuture<>();
  /** A hedged read whose attempts hold their thread until the reply: none runs on the caller's. */
  private final boolean attemptsBlock;

  private Scheduler.Cancellable hedgeTimer; // guarded by this

  AsyncCall(
      RequestPath<C> path,
      CallDecider decider,
      ConsistencyLevel level,
      AsyncOperation<C, R> op,
      CallEvents events,
      boolean attemptsBlock) {
    this.path = path;
    this.command = decider.command();
    this.decider = decider;
    this.level = level;
    this.op = op;
    this.events = events;
    this.attemptsBlock = attemptsBlock;
  }

  CompletableFuture<R> start() {
    Step first;
    synchronized (this) {
      first = step(decider.next());
    }
    if (attemptsBlock || path.onTransportThread()) {
      handOff(() -> carryOut(first));
    } else {
      carryOut(first);
    }
    return result;
  }

  /**
   * Waits for a call's end as a blocking call does, ignoring interrupts as a socket read does (the
   * status stays set): its failure is thrown as the blocking call would throw it. The wait ends:
   * each attempt is bounded by its read timeout, the call by its deadline.
   */
  static <R> R await(String command, CompletableFuture<R> call) {
    try {
      return call.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new DynoException(command + ": " + cause, cause);
    }
  }

  /** The decider's answer with what it names; call with the lock held. */
  private Step step(Answer answer) {
    return switch (answer) {
      case RUN, HEDGE -> new Step(answer, decider.host(), decider.reason(), 0, null);
      case BACK_OFF ->
        new Step(answer, decider.host(), decider.reason(), decider.backoffNanos(), null);
      case GIVE_UP -> new Step(answer, null, null, 0, decider.error());
      case STOP -> null;
    };
  }

  /** Carries out answers until an attempt is in flight, a backoff is scheduled or the call has ended. */
  private void carryOut(Step step) {
    try {
      while (step != null) {
        switch (step.answer) {
          case RUN -> step = send(step.host, step.reason);
          case HEDGE -> step = send(step.host, step.reason);
          case BACK_OFF -> {
            backOff(step);
            return;
          }
          default -> {
            giveUp(step.error);
            return;
          }
        }
      }
    } catch (RuntimeException | Error e) {
      // A bug or a failing driver must still end the call, never leave its future hanging.
      fail(e instanceof DynoException d ? d : new DynoException(command + ": " + e, e));
    }
  }

  /** Waits out a backoff on a timer; until the attempt starts, an engine closing meanwhile ends the call. */
  private void backOff(Step step) {
    path.waiting.add(this);
    Step run = new Step(Answer.RUN, step.host, step.reason, 0, null);
    path.scheduler.schedule(
        () -> handOff(() -> carryOut(run)), Duration.ofNanos(step.backoffNanos));
  }

  /**
   * Continues the call on the engine's I/O executor (its attempt threads when attempts block). Until
   * the task starts the call is in the path's waiting set, so that an engine that closes and drops
   * queued tasks still ends it.
   */
  private void handOff(Runnable task) {
    path.waiting.add(this);
    try {
      (attemptsBlock ? path.attemptThreads : path.io).execute(() -> {
        path.waiting.remove(this);
        task.run();
      });
    } catch (RuntimeException rejected) {
      path.waiting.remove(this);
      fail(new DynoException(
          command + ": the Dyno engine closed before the call finished", rejected));
    }
  }

  /** The engine closed while this call waited for a backoff or for a thread to continue it. */
  void engineClosed() {
    fail(new DynoException(command + ": the Dyno engine closed before the call finished"));
  }

  /** One attempt on {@code host}: borrow, cap, switch consistency, send; settled at once when the reply is already there. */
  private Step send(Host host, AttemptReason reason) {
    boolean hedge = reason == AttemptReason.HEDGE;
    long budget;
    synchronized (this) {
      budget = decider.borrowBudget();
      if (budget < 0) {
        return step(decider.pastDeadline());
      }
    }
    int attempt = events.attemptStart(host, reason);
    NodePool<C> pool = path.pools.pool(host);
    Pooled<C> conn;
    try {
      conn = pool.borrow(budget);
    } catch (PoolTimeoutException | DynoConnectionException e) {
      events.attemptEnd(attempt, host, AttemptOutcome.NOT_SENT, e);
      synchronized (this) {
        return step(decider.notSent(e));
      }
    }
    long capMillis;
    synchronized (this) {
      capMillis = decider.sending(host);
    }
    if (capMillis < 0) {
      pool.release(conn);
      events.attemptEnd(attempt, host, AttemptOutcome.NOT_SENT, null);
      synchronized (this) {
        return step(decider.pastDeadline());
      }
    }
    boolean sent = false;
    long sentAt = 0;
    CompletableFuture<R> reply;
    try {
      if (capMillis > 0) {
        conn.capReadTimeout(capMillis);
      }
      CallRules.setConsistency(path, level, conn.connection());
      sent = true;
      sentAt = path.ticker.nanoTime();
      if (attemptsBlock && !hedge) {
        scheduleHedge(host); // the reply is in only when start returns
      }
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
      CallRules.keep(pool, conn);
      succeeded(attempt, host, hedge, sentAt, reply.join());
      return null;
    }
    CallRules.keep(
        pool, conn); // the shared connection carries the reply; the lease is free for others
    long at = sentAt;
    reply.whenComplete((r, t) -> onReply(attempt, host, hedge, at, r, t));
    if (!hedge) {
      scheduleHedge(host);
    }
    return null;
  }

  /** An attempt's reply arrived (the transport's I/O thread): a new attempt goes to the I/O executor. */
  private void onReply(int attempt, Host host, boolean hedge, long sentAt, R reply, Throwable t) {
    try {
      if (t == null) {
        succeeded(attempt, host, hedge, sentAt, reply);
        return;
      }
      Step next = failed(attempt, host, null, null, true, t);
      if (next != null && next.answer == Answer.RUN) {
        handOff(() -> carryOut(next));
      } else {
        carryOut(next);
      }
    } catch (RuntimeException | Error e) {
      fail(e instanceof DynoException d ? d : new DynoException(command + ": " + e, e));
    }
  }

  private void succeeded(int attempt, Host host, boolean hedge, long sentAt, R reply) {
    long now = path.ticker.nanoTime();
    path.latencies.record(host, now - sentAt, now);
    boolean won; // only the answer that completes the call is its SUCCESS; a later one is DISCARDED
    synchronized (this) {
      won = decider.succeeded(host, hedge);
      if (won) {
        cancelHedgeTimer();
      }
    }
    events.attemptEnd(attempt, host, won ? AttemptOutcome.SUCCESS : AttemptOutcome.DISCARDED, null);
    if (won) {
      CallRules.record(path, events, decider, null, now); // the reply's time ends the call
      result.complete(reply);
    }
  }

  /** A failed attempt: its connection (if still held) and node settled as the driver reports, then the decider's answer. */
  private Step failed(
      int attempt, Host host, NodePool<C> pool, Pooled<C> conn, boolean sent, Throwable failure) {
    Throwable t = unwrap(failure);
    FailureReport report = CallRules.settle(path, events, attempt, host, pool, conn, sent, t);
    synchronized (this) {
      return step(decider.failed(host, report, sent, t));
    }
  }

  /** After the first attempt is sent: a timer for its hedge, if the decider wants one. */
  private void scheduleHedge(Host host) {
    synchronized (this) {
      long delay = hedgeTimer != null ? -1 : decider.hedgeDelay(path.latencies, host);
      if (delay >= 0) {
        hedgeTimer = path.scheduler.schedule(
            attemptsBlock ? () -> handOff(this::hedgeDue) : () -> path.io.execute(this::hedgeDue),
            Duration.ofNanos(delay));
      }
    }
  }

  private void hedgeDue() {
    Step hedge;
    synchronized (this) {
      hedge = step(decider.hedge());
    }
    carryOut(hedge);
  }

  private void cancelHedgeTimer() {
    if (hedgeTimer != null) {
      hedgeTimer.cancel();
      hedgeTimer = null;
    }
  }

  /** The decider gave up (it has ended the call): the caller gets {@code e}. */
  private void giveUp(RuntimeException e) {
    synchronized (this) {
      cancelHedgeTimer();
    }
    CallRules.record(path, events, decider, e);
    result.completeExceptionally(e);
  }

  /** Ends the call with {@code e} unless it has ended already (the engine closed, a bug). */
  private void fail(Throwable e) {
    synchronized (this) {
      if (!decider.end(e)) {
        return;
      }
      cancelHedgeTimer();
    }
    CallRules.record(path, events, decider, e);
    result.completeExceptionally(e);
  }

  private static Throwable failureOf(CompletableFuture<?> done) {
    if (!done.isCompletedExceptionally()) {
      return null;
    }
    try {
      done.join();
      return null;
    } catch (CompletionException | CancellationException e) {
      return e;
    }
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
