package io.dyno.core.exec.internal;

import io.dyno.core.DeadlineExceededException;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.DynoException;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.spi.FailureKind;
import io.dyno.core.spi.FailureReport;
import java.util.List;
import java.util.function.DoubleSupplier;

/**
 * The one place that decides what one call does next: run, re-run, fail over, back off, hedge or
 * give up. {@link Call} (blocking), {@link AsyncCall} (asynchronous, and every one-part command on
 * the multiplexed transport) and each part of a scattered call ({@link Scatter}) tell it what
 * happened and carry out its {@link Answer}; they decide nothing themselves.
 *
 * <p>The conversation, for each attempt:
 * <pre>
 *   next() ──► RUN node | BACK_OFF node, then RUN | GIVE_UP error
 *   borrowBudget()     how long the borrow may wait (-1: the deadline passed → pastDeadline())
 *   sending(node)      a connection is in hand: the run's read-timeout cap (-1: do not send)
 *   succeeded(node)    the answer is the call's (or dropped: the call had already ended)
 *   notSent(e) | failed(node, report) ──► RUN | BACK_OFF | GIVE_UP | STOP
 *   hedgeDelay() / hedge() ──► HEDGE node | STOP       (reads, while the first attempt is out)
 * </pre>
 *
 * <p>Rules. A failure before the command was sent (borrow timeout, connect failure, draining node,
 * consistency switch failure, a transport refusing it unsent) moves on to the next replica
 * whatever the command; a failure after it was sent is re-run only for idempotent commands (or
 * when allowed), within the retry policy's attempts. Each move to another node counts against
 * {@code maxFailoverCount}. Re-running on a node already tried waits the policy's backoff. No
 * borrow, backoff or attempt starts after the deadline ({@link Deadline}).
 *
 * <p>Budgets under a deadline, so that one dead or hung node cannot eat it all:
 * <ul>
 *   <li>Borrow (a connect, or a wait for a free connection): at most {@code maxTimeoutWhenExhausted},
 *       and at most the time left divided by the candidates this call could still try (this one
 *       included), never below {@link #BORROW_FLOOR_NANOS} (nor above the time left). A node whose
 *       reconnect is pending thus costs one share, and the rest goes to the healthy replicas.
 *   <li>Read (the run itself): the time left, or half of it while the call could still move on to
 *       an untried replica.
 * </ul>
 *
 * <p>Concurrency: a blocking call talks to it from one thread. An asynchronous call has parties
 * that act on it at once (an attempt in flight, a hedge, a timer): it guards the machine with its
 * own lock. {@code lines} counts those parties; a failure while another is still out stops there
 * ({@link Answer#STOP}), and the last one decides. Pure but for the clock ({@link Deadline}), node
 * health (read) and the failover, retry and hedge counters it bumps when it decides them. Which
 * candidate comes next is its {@link ReplicaChooser} walk, which it extends rather than holds so
 * that a call allocates one object for both.
 */
final class CallDecider extends ReplicaChooser {

  /** What the carrier of a call does next. */
  enum Answer {
    /** Run on {@link #host()} now. */
    RUN,
    /** Run on {@link #host()} after {@link #backoffNanos()}. */
    BACK_OFF,
    /** Send the read to {@link #host()} too, while the first attempt is still out. */
    HEDGE,
    /** End the call with {@link #error()}. */
    GIVE_UP,
    /** Nothing to do here: another attempt still out decides, or the call has ended. */
    STOP
  }

  /** The least a borrow may wait under a deadline, however many candidates share it. */
  static final long BORROW_FLOOR_NANOS = 10_000_000;

  /** What every call's decider reads besides its own rules: node health, the jitter's randomness, the counters. */
  record Context(HealthTracker health, DoubleSupplier random, Meters metrics) {}

  private final String command;
  private final Deadline deadline;
  private final DynoConfig cfg; // the call's snapshot: failover count, borrow timeout
  private final RetryPolicy policy;
  private final boolean rerunUnknown; // may run again after a failure whose effect is unknown
  private final HedgePolicy hedging; // null: not hedged
  private final Context ctx;
  private final long startNanos;

  private int node = NONE; // the answer's node
  private long backoffNanos; // the answer's wait
  private RuntimeException error; // the answer's (GIVE_UP) failure
  private boolean mayRerun; // a node already tried may take the next attempt
  private int lines = 1; // parties still acting on the call
  private int runs;
  private int reruns;
  private int unsent;
  private DynoException last;
  private Outcome outcome = Outcome.ERROR;
  private Host lastNode; // whose rack the call's metric names
  private boolean ended;
  private boolean hedgeSent;

  CallDecider(
      String command,
      List<Host> candidates,
      Deadline deadline,
      boolean rerunUnknown,
      HedgePolicy hedging,
      DynoConfig cfg,
      Context ctx,
      long startNanos) {
    super(candidates);
    this.command = command;
    this.deadline = deadline;
    this.rerunUnknown = rerunUnknown;
    this.hedging = hedging != null && hedging.enabled() ? hedging : null;
    this.cfg = cfg;
    this.policy = cfg.retryPolicy();
    this.ctx = ctx;
    this.startNanos = startNanos;
  }

  /** The next attempt: RUN (or BACK_OFF, then run) on {@link #host()}, or GIVE_UP; STOP once ended. */
  Answer next() {
    if (ended) {
      return Answer.STOP;
    }
    int next = choose(ctx.health(), cfg.maxFailoverCount(), mayRerun);
    if (next == NONE) {
      return giveUp(exhausted());
    }
    boolean rerun = wasTried(next);
    if (moveTo(next)) {
      ctx.metrics().failover(command, candidate(next).rack());
    }
    node = next;
    lastNode = candidate(next);
    backoffNanos = rerun ? policy.backoffNanos(++reruns, ctx.random()) : 0;
    if (backoffNanos <= 0) {
      return Answer.RUN;
    }
    return deadline.outlasts(backoffNanos) ? Answer.BACK_OFF : giveUp(deadlineExceeded());
  }

  /**
   * How long the borrow for the attempt about to start may wait (see the class comment), or -1
   * when the deadline has passed (ask {@link #pastDeadline}).
   */
  long borrowBudget() {
    long left = deadline.leftNanos();
    if (left <= 0) {
      return -1;
    }
    long budget = Math.min(cfg.maxTimeoutWhenExhausted().toNanos(), left);
    if (deadline.isSet()) {
      int after = movesLeft(cfg.maxFailoverCount());
      if (after > 0) {
        budget = Math.min(budget, Math.max(left / (after + 1), Math.min(left, BORROW_FLOOR_NANOS)));
      }
    }
    return budget;
  }

  /**
   * A connection to {@code host} is in hand and the command is about to go: the read timeout (ms)
   * that bounds the run (0: leave the socket's), or -1 when it must not be sent (the call ended or
   * the deadline passed: ask {@link #pastDeadline}). Counts the run.
   */
  long sending(Host host) {
    if (ended) {
      return -1;
    }
    long cap = 0;
    if (deadline.isSet()) {
      boolean canMoveOn = rerunUnknown
          && runs + 1 < policy.maxAttempts()
          && failovers() < cfg.maxFailoverCount()
          && hasUntried();
      cap = deadline.readCapMillis(canMoveOn);
      if (cap < 0) {
        return -1;
      }
    }
    runs++;
    lastNode = host;
    return cap;
  }

  /**
   * For a run that waited on other work after it started (a scattered call's part): its read
   * timeout now, so that it ends by the deadline (ms, at least 1); 0 without a deadline.
   */
  long readCapNow() {
    return deadline.isSet() ? deadline.leftMillisAtLeastOne() : 0;
  }

  /** The deadline passed before an attempt could be sent. */
  Answer pastDeadline() {
    if (ended || lines > 1) {
      lines--;
      return Answer.STOP;
    }
    return giveUp(deadlineExceeded());
  }

  /** An attempt on {@code host} answered: true when the answer is the call's result, false when it is dropped. */
  boolean succeeded(Host host, boolean hedge) {
    lines--;
    if (ended) {
      if (hedgeSent) {
        ctx.metrics().hedge(command, "discarded");
      }
      return false;
    }
    ended = true;
    outcome = Outcome.SUCCESS;
    lastNode = host;
    if (hedge) {
      ctx.metrics().hedge(command, "won");
    }
    return true;
  }

  /** No connection to the node of the attempt could be had ({@code e}: why); nothing was sent. */
  Answer notSent(DynoException e) {
    last = CallRules.chain(last, e);
    return unsentFailure(false);
  }

  /**
   * The attempt on {@code host} failed with {@code failure}, which the driver reported as
   * {@code report}. {@code commandSent}: the carrier got as far as handing the command over (false:
   * the read-timeout cap or the consistency switch failed first).
   */
  Answer failed(Host host, FailureReport report, boolean commandSent, Throwable failure) {
    boolean sent = commandSent && report.sent();
    if (!sent) {
      runs--; // the command itself never ran
    }
    if (!report.sent()) {
      // Refused unsent by the transport: a pool timeout in all but name.
      last = CallRules.chain(
          last, CallRules.failedOn(command, host, FailureKind.CONNECTION, false, failure));
      return unsentFailure(report.sameNodeMayRetake());
    }
    FailureKind kind = report.kind();
    if (ended) {
      lines--;
      if (hedgeSent) {
        ctx.metrics().hedge(command, "discarded");
      }
      return Answer.STOP;
    }
    if (kind == FailureKind.DATA) {
      lines--;
      return end(asUnchecked(failure), Outcome.DATA_ERROR);
    }
    DynoConnectionException e = CallRules.failedOn(command, host, kind, sent, failure);
    last = CallRules.chain(last, e);
    if (!sent) {
      return unsentFailure(
          true); // the switch failed: the same node may take it on another connection
    }
    if (lines > 1) {
      lines--; // another attempt is still out: it decides
      return Answer.STOP;
    }
    if (!rerunUnknown) {
      return end(CallRules.notIdempotent(e, command), Outcome.ofLastFailure(last));
    }
    if (runs >= policy.maxAttempts()) {
      return giveUp(exhausted());
    }
    ctx.metrics().retry(command);
    if (!policy.allowCrossRackFallback()) {
      stayInRack(host.rack()); // the command may have run: re-run it here, never in another rack
    }
    mayRerun = true;
    return next();
  }

  /** How long after sending the first attempt to {@code first} it is hedged; -1: it is not. */
  long hedgeDelay(RecentLatencies latencies, Host first) {
    if (hedging == null || ended || hedgeSent || !hasUntried()) {
      return -1;
    }
    long delay = hedging.delayNanos(hedging.followsNodeP99() ? latencies.p99(first) : 0);
    return deadline.outlasts(delay) ? delay : -1;
  }

  /** The hedge delay passed with no answer: HEDGE to {@link #host()}, or STOP. */
  Answer hedge() {
    int maxFailovers = cfg.maxFailoverCount();
    if (ended || hedgeSent || failovers() >= maxFailovers) {
      return Answer.STOP;
    }
    int next = choose(ctx.health(), maxFailovers, false);
    if (next == NONE || wasTried(next)) {
      return Answer.STOP;
    }
    moveTo(next);
    node = next;
    hedgeSent = true;
    lines++; // the hedge is a party of its own
    ctx.metrics().hedge(command, "sent");
    return Answer.HEDGE;
  }

  /** Ends the call from outside the rules (the engine closed, a bug): false when it had ended already. */
  boolean end(Throwable e) {
    if (ended) {
      return false;
    }
    ended = true;
    outcome = e instanceof DeadlineExceededException ? Outcome.DEADLINE_EXCEEDED : Outcome.ERROR;
    return true;
  }

  String command() {
    return command;
  }

  /** When the call started (ticker time). */
  long startNanos() {
    return startNanos;
  }

  Host host() {
    return candidate(node);
  }

  long backoffNanos() {
    return backoffNanos;
  }

  RuntimeException error() {
    return error;
  }

  Outcome outcome() {
    return outcome;
  }

  /** The node whose rack the call's metric names (the one that answered, else the last tried); null: none. */
  Host lastNode() {
    return lastNode;
  }

  /** Any failure before sending: another replica, or the same node when {@code sameNodeToo}, within the unsent budget. */
  private Answer unsentFailure(boolean sameNodeToo) {
    if (ended || lines > 1) {
      lines--;
      return Answer.STOP;
    }
    if (++unsent > candidateCount() + policy.maxAttempts()) {
      return giveUp(exhausted());
    }
    mayRerun = sameNodeToo;
    return next();
  }

  private Answer giveUp(RuntimeException e) {
    return end(
        e,
        e instanceof DeadlineExceededException
            ? Outcome.DEADLINE_EXCEEDED
            : Outcome.ofLastFailure(last));
  }

  private Answer end(RuntimeException e, Outcome how) {
    ended = true;
    error = e;
    outcome = how;
    return Answer.GIVE_UP;
  }

  private DynoException exhausted() {
    return CallRules.giveUp(command, last, runs, failovers());
  }

  private DeadlineExceededException deadlineExceeded() {
    return CallRules.deadlineExceeded(command, deadline.describe(), runs, last);
  }

  private RuntimeException asUnchecked(Throwable t) {
    return t instanceof RuntimeException r ? r : new DynoException(command + ": " + t, t);
  }

  /** What a failure the driver reported does to the connection: true when it must be discarded and the node blamed. */
  static boolean breaksConnection(FailureReport report) {
    return report.sent()
        && (report.kind() == FailureKind.CONNECTION || report.kind() == FailureKind.TIMEOUT);
  }
}
