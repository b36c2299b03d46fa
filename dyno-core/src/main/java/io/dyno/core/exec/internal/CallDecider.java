package io.dyno.core.exec.internal;

import io.dyno.core.DeadlineExceededException;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.DynoException;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.engine.internal.CallSpec;
import io.dyno.core.engine.internal.FailureReport;
import io.dyno.core.events.AttemptReason;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.routing.internal.DivergedKeys;
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
 * whatever the command; one after it was sent is re-run only for idempotent commands (or when
 * allowed), within the retry policy's attempts. Each move counts against {@code maxFailoverCount};
 * a re-run on a node already tried waits the backoff; nothing starts after the deadline.
 *
 * <p>Racks kept together: a non-idempotent write does not leave its first candidate's rack while
 * that owner is away or could not take it (unless it is leaving the topology); a write served
 * elsewhere meanwhile is remembered by key until a whole-value write sent home forgets it
 * ({@link WriteSafety}, {@link DivergedKeys}). Budgets under the deadline, and when a timeout
 * blames its node: {@link CallBudgets}.
 *
 * <p>Concurrency: a blocking call talks to it from one thread; an asynchronous call's parties (an
 * attempt in flight, a hedge, a timer) hold its lock. {@code lines} counts them: a failure while
 * another is out STOPs, the last one decides. Pure but for the clock, node health (read) and the
 * counters it bumps. It holds the call's two helpers, each with one job: which candidate comes
 * next ({@link ReplicaChooser}) and how long a borrow or a reply may wait under the deadline
 * ({@link CallBudgets}).
 */
final class CallDecider {

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

  /**
   * What every call's decider reads besides its own rules: node health, the jitter's randomness, the
   * counters, and the keys last written in another rack ({@link DivergedKeys}).
   */
  record Context(
      HealthTracker health, DoubleSupplier random, Meters metrics, DivergedKeys diverged) {}

  // A non-idempotent write: not to another rack while its first candidate is away.
  private static final int HELD_IN_RACK = 1;
  // The key's last write went to another rack: its read is not hedged to the rest (the old value).
  private static final int KEY_MOVED = 1 << 1;
  // A whole-value write of a remembered key, sent home: forgets the key when home takes it.
  private static final int BRINGS_KEY_HOME = 1 << 2;
  private static final int OWNER_FAILED = 1 << 3; // the first candidate failed or was unreachable
  private static final int RERUN_UNKNOWN = 1 << 4; // may re-run after a failure of unknown effect
  private static final int MAY_RERUN = 1 << 5; // a node already tried may take the next attempt
  private static final int ENDED = 1 << 6;
  private static final int HEDGE_SENT = 1 << 7;
  private static final int LAST_NOT_SENT = 1 << 8; // the last failure came before sending
  // Bits 9 to 13 of flags: the ordinal of the reason of the last answer naming a node (kept in the
  // int every call has, not a field of its own, so that the decider stays the size it was).
  private static final int REASON_SHIFT = 9;
  private static final int REASON_BITS = 0x1F;
  private static final AttemptReason[] REASONS = AttemptReason.values();

  static {
    if (REASONS.length > REASON_BITS + 1) {
      throw new IllegalStateException("AttemptReason outgrew the decider's " + REASON_BITS
          + "-valued reason bits; widen REASON_BITS");
    }
  }

  private final CallSpec call;
  private final ReplicaChooser chooser;
  private final CallBudgets budgets;
  private final Deadline deadline;
  private final DynoConfig cfg; // the call's snapshot
  private final String command; // the call's, read on every answer
  private final Object key; // what the candidates were routed by; null: none named
  private final HedgePolicy hedging; // null: not hedged
  private final Context ctx;
  private final long startNanos;

  private int flags; // the yes/no facts above: one int, not eight booleans, in every call
  private long backoffNanos; // the answer's wait (its node: the chooser's current one)
  private RuntimeException error; // the answer's (GIVE_UP) failure
  private int lines = 1; // parties still acting on the call
  private int runs;
  private int reruns;
  private int unsent;
  private DynoException last;
  private Outcome outcome = Outcome.ERROR;
  private Host lastNode; // whose rack the call's metric names

  /**
   * @param call the call: its key (null: none named; a key last written in another rack goes there
   *     first, {@link DivergedKeys}), its kind, whether it is idempotent (a non-idempotent one stays
   *     in its first candidate's rack unless {@code failoverNonIdempotentWrites})
   * @param candidates the call's candidates, as it may use them (its datacenter's, see RequestPath)
   * @param rerunUnknown it may run again after a failure whose effect is unknown
   */
  CallDecider(
      CallSpec call,
      List<Host> candidates,
      Deadline deadline,
      boolean rerunUnknown,
      HedgePolicy hedging,
      DynoConfig cfg,
      Context ctx,
      long startNanos) {
    this.chooser = new ReplicaChooser(WriteSafety.candidatesFor(call, candidates, ctx));
    this.budgets = new CallBudgets(chooser, deadline, cfg);
    this.deadline = deadline;
    this.cfg = cfg;
    this.call = call;
    this.command = call.command();
    this.key = call.key();
    boolean idempotent = call.idempotent();
    boolean keyMoved = !candidates.isEmpty() && chooser.candidate(0) != candidates.get(0);
    boolean bringsKeyHome = !keyMoved
        && ctx.diverged().rackOf(key) != null // no lookup while no key is remembered
        && WriteSafety.isWholeValueWrite(call);
    boolean held =
        !idempotent && !cfg.failoverNonIdempotentWrites() && chooser.candidateCount() > 0;
    int facts = (keyMoved ? KEY_MOVED : 0) | (rerunUnknown ? RERUN_UNKNOWN : 0);
    this.flags = facts | (bringsKeyHome ? BRINGS_KEY_HOME : 0) | (held ? HELD_IN_RACK : 0);
    this.hedging = hedging != null && hedging.enabled() ? hedging : null;
    this.ctx = ctx;
    this.startNanos = startNanos;
  }

  /** The next attempt: RUN (or BACK_OFF, then run) on {@link #host()}, or GIVE_UP; STOP once ended. */
  Answer next() {
    if (is(ENDED)) {
      return Answer.STOP;
    }
    // Held in its rack, it goes to its owner, even one steered away from: no call would find out
    // if the owner died meanwhile, and another rack's replication would miss it.
    boolean toOwner = is(HELD_IN_RACK) && runs == 0 && WriteSafety.hasOtherRacks(chooser);
    String away = toOwner ? WriteSafety.whyHeld(ctx.health(), chooser.candidate(0), unsent) : null;
    if (away != null) {
      return giveUp(WriteSafety.heldInRack(
          command, key, chooser.candidate(0), away, unsent == 0 ? null : last));
    }
    int next = toOwner ? 0 : chooser.choose(ctx.health(), cfg.maxFailoverCount(), is(MAY_RERUN));
    if (next == ReplicaChooser.NONE) {
      return giveUp(refusalNoted(exhausted()));
    }
    boolean rerun = chooser.wasTried(next);
    boolean first = chooser.current() == ReplicaChooser.NONE;
    boolean moved = chooser.moveTo(next);
    if (moved) {
      ctx.metrics().failover(command, chooser.candidate(next).rack());
    }
    because(
        first
            ? firstReason(next)
            : moved
                ? AttemptReason.FAILOVER
                : is(LAST_NOT_SENT) ? AttemptReason.SAME_NODE_RESEND : AttemptReason.RETRY);
    lastNode = chooser.candidate(next);
    backoffNanos = rerun ? cfg.retryPolicy().backoffNanos(++reruns, ctx.random()) : 0;
    if (backoffNanos <= 0) {
      return Answer.RUN;
    }
    return deadline.outlasts(backoffNanos) ? Answer.BACK_OFF : giveUp(deadlineExceeded());
  }

  /**
   * A connection to {@code host} is in hand and the command is about to go: the read timeout (ms)
   * that bounds the run (0: leave the socket's), or -1 when it must not be sent (the call ended or
   * the deadline passed: ask {@link #pastDeadline}). Counts the run.
   */
  long sending(Host host) {
    if (is(ENDED)) {
      return -1;
    }
    long cap = budgets.replyCap(host, runsAfter());
    if (cap < 0) {
      return -1;
    }
    runs++;
    lastNode = host;
    return cap;
  }

  /** The deadline passed before an attempt could be sent. */
  Answer pastDeadline() {
    if (is(ENDED) || lines > 1) {
      lines--;
      return Answer.STOP;
    }
    return giveUp(deadlineExceeded());
  }

  /** An attempt on {@code host} answered: true when the answer is the call's result, false when it is dropped. */
  boolean succeeded(Host host, boolean hedge) {
    lines--;
    if (is(ENDED)) {
      if (is(HEDGE_SENT)) {
        ctx.metrics().hedge(command, "discarded");
      }
      return false;
    }
    flags |= ENDED;
    outcome = Outcome.SUCCESS;
    lastNode = host;
    if (hedge) {
      ctx.metrics().hedge(command, "won");
    } else if (is(BRINGS_KEY_HOME) && host.rack().equals(chooser.candidate(0).rack())) {
      ctx.diverged().forget(key); // replicated from home, every rack now holds this value
    } else if (key != null
        && !host.equals(chooser.candidate(0))
        && (is(OWNER_FAILED)
            || !ctx.health().isUp(chooser.candidate(0))) // not just busy or steered
        && !call.read()) {
      ctx.diverged().served(command, key, chooser.candidate(0), host);
    }
    return true;
  }

  /** No connection to the node of the attempt could be had ({@code e}: why); nothing was sent. */
  Answer notSent(DynoException e) {
    last = CallRules.chain(last, e);
    flags |= chooser.current() == 0 && WriteSafety.connectFailed(e) ? OWNER_FAILED : 0;
    flags &=
        chooser.current() == 0 && WriteSafety.ownerLeaving(e) ? ~HELD_IN_RACK : ~0; // free to move
    return unsentFailure(false);
  }

  /**
   * The attempt on {@code host} failed with {@code failure}, which the driver reported as
   * {@code report}. {@code commandSent}: the carrier got as far as handing the command over (false:
   * the read-timeout cap or the consistency switch failed first).
   */
  Answer failed(Host host, FailureReport report, boolean commandSent, Throwable failure) {
    if (report.sent() && report.kind() == FailureKind.TIMEOUT) {
      // Whether or not the call has ended: a silent node leaves rotation either way.
      budgets.judgeTimeout(host, ctx.health());
    } else if (report.nodeSilentNanos() > 0) {
      ctx.health().timedOut(host, report.nodeSilentNanos());
    }
    boolean sent = commandSent && report.sent();
    if (!sent) {
      runs--; // the command itself never ran
    }
    // A closed connection may mean a dead owner (as a refused connect); a busy one lets writes go.
    boolean ownerDown = report.sent() || report.nodeUnreachable() || report.sameNodeMayRetake();
    flags |= ownerDown && host.equals(chooser.candidate(0)) ? OWNER_FAILED : 0;
    if (!report.sent()) {
      // Refused unsent by the transport: a pool timeout in all but name.
      last = CallRules.chain(
          last, CallRules.failedOn(command, host, FailureKind.CONNECTION, false, failure));
      return unsentFailure(report.sameNodeMayRetake());
    }
    FailureKind kind = report.kind();
    if (is(ENDED)) {
      lines--;
      if (is(HEDGE_SENT)) {
        ctx.metrics().hedge(command, "discarded");
      }
      return Answer.STOP;
    }
    if (kind == FailureKind.DATA) {
      lines--;
      return end(CallRules.unchecked(command, failure), Outcome.DATA_ERROR);
    }
    DynoConnectionException e = CallRules.failedOn(command, host, kind, sent, failure);
    last = CallRules.chain(last, e);
    if (!sent) { // the switch failed: the same node may take it on another connection
      return unsentFailure(true);
    }
    if (lines > 1) {
      lines--; // another attempt is still out: it decides
      return Answer.STOP;
    }
    if (!is(RERUN_UNKNOWN)) {
      return end(refusalNoted(CallRules.notIdempotent(e, command)), Outcome.ofLastFailure(last));
    }
    RetryPolicy policy = cfg.retryPolicy();
    if (runs >= policy.maxAttempts()) {
      return giveUp(exhausted());
    }
    ctx.metrics().retry(command);
    flags &= ~LAST_NOT_SENT;
    if (is(HELD_IN_RACK) || !policy.allowCrossRackFallback()) {
      chooser.stayInRack(
          host.rack()); // the command may have run: re-run it here, never in another rack
    }
    flags |= MAY_RERUN;
    return next();
  }

  /** How long after sending the first attempt to {@code first} it is hedged; -1: it is not. */
  long hedgeDelay(RecentLatencies latencies, Host first) {
    if (hedging == null || is(ENDED) || is(HEDGE_SENT) || is(KEY_MOVED) || !chooser.hasUntried()) {
      return -1;
    }
    long delay = hedging.delayNanos(hedging.followsNodeP99() ? latencies.p99(first) : 0);
    return deadline.outlasts(delay) ? delay : -1;
  }

  /** The hedge delay passed with no answer: HEDGE to {@link #host()}, or STOP. */
  Answer hedge() {
    int maxFailovers = cfg.maxFailoverCount();
    if (is(ENDED) || is(HEDGE_SENT) || chooser.failovers() >= maxFailovers) {
      return Answer.STOP;
    }
    int next = chooser.choose(ctx.health(), maxFailovers, false);
    if (next == ReplicaChooser.NONE || chooser.wasTried(next)) {
      return Answer.STOP;
    }
    chooser.moveTo(next);
    because(AttemptReason.HEDGE);
    flags |= HEDGE_SENT;
    lines++; // the hedge is a party of its own
    ctx.metrics().hedge(command, "sent");
    return Answer.HEDGE;
  }

  /** Ends the call from outside the rules (the engine closed, a bug): false when it had ended already. */
  boolean end(Throwable e) {
    if (is(ENDED)) {
      return false;
    }
    flags |= ENDED;
    outcome = e instanceof DeadlineExceededException ? Outcome.DEADLINE_EXCEEDED : Outcome.ERROR;
    return true;
  }

  String command() {
    return command;
  }

  /** The candidates in the order this call walks them (a remembered rack's first, see {@link WriteSafety#candidatesFor}). */
  List<Host> candidates() {
    return chooser.candidates();
  }

  /**
   * How long the borrow for the attempt about to start may wait, or -1 when the deadline has passed
   * (ask {@link #pastDeadline}).
   */
  long borrowBudget() {
    return budgets.borrowBudget();
  }

  /** For a run that waited on other work after it started (a scattered part): its read timeout now. */
  long readCapNow() {
    return budgets.readCapNow();
  }

  /** When the call started (ticker time). */
  long startNanos() {
    return startNanos;
  }

  Host host() {
    return chooser.candidate(chooser.current());
  }

  /** Why the last RUN, BACK_OFF or HEDGE answer goes to {@link #host()}: what the call's listener is told. */
  AttemptReason reason() {
    return REASONS[(flags >>> REASON_SHIFT) & REASON_BITS];
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

  /**
   * How many runs after the one about to be sent may still need the time left, sharing it with
   * that one, so that a silent node leaves the rest to the replicas after it.
   */
  private int runsAfter() {
    return is(RERUN_UNKNOWN)
        ? Math.min(
            chooser.movesLeft(cfg.maxFailoverCount()), cfg.retryPolicy().maxAttempts() - runs - 1)
        : 0;
  }

  /**
   * Why a call's first attempt goes to candidate {@code chosen}: the first candidate is the key's
   * owner in the local rack, or in the rack the key was last written in ({@link DivergedKeys});
   * a later one was chosen because those before it are steered away from for their latency (in
   * rotation, so node health says so) or out of rotation.
   */
  private AttemptReason firstReason(int chosen) {
    if (chosen == 0) {
      return is(KEY_MOVED) ? AttemptReason.REMEMBERED_RACK : AttemptReason.PREFERRED;
    }
    for (int i = 0; i < chosen; i++) {
      if (ctx.health().isUp(chooser.candidate(i))) {
        return AttemptReason.STEERED;
      }
    }
    return AttemptReason.PREFERRED_DOWN;
  }

  private void because(AttemptReason reason) {
    flags = (flags & ~(REASON_BITS << REASON_SHIFT)) | (reason.ordinal() << REASON_SHIFT);
  }

  private boolean is(int flag) {
    return (flags & flag) != 0;
  }

  /** Any failure before sending: another replica, or the same node when {@code sameNodeToo}, within the unsent budget. */
  private Answer unsentFailure(boolean sameNodeToo) {
    if (is(ENDED) || lines > 1) {
      lines--;
      return Answer.STOP;
    }
    if (++unsent > chooser.candidateCount() + cfg.retryPolicy().maxAttempts()) {
      return giveUp(exhausted());
    }
    flags = (sameNodeToo ? flags | MAY_RERUN : flags & ~MAY_RERUN) | LAST_NOT_SENT;
    return next();
  }

  private Answer giveUp(RuntimeException e) {
    boolean late = e instanceof DeadlineExceededException;
    return end(e, late ? Outcome.DEADLINE_EXCEEDED : Outcome.ofLastFailure(last));
  }

  private Answer end(RuntimeException e, Outcome how) {
    flags |= ENDED;
    error = e;
    outcome = how;
    return Answer.GIVE_UP;
  }

  private DynoException exhausted() {
    return CallRules.giveUp(command, last, runs, chooser.failovers());
  }

  private DeadlineExceededException deadlineExceeded() {
    return CallRules.deadlineExceeded(
        command,
        deadline.describe(),
        runs,
        last,
        chooser.current() == ReplicaChooser.NONE ? null : host());
  }

  /** {@code e}, saying so when the write may be applied in the other racks ({@link WriteSafety#refusalNoted}). */
  private DynoException refusalNoted(DynoException e) {
    return WriteSafety.refusalNoted(e, call, chooser, cfg.datastoreMode());
  }
}
