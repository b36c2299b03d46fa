package io.dyno.core.exec.internal;

import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.health.internal.HealthTracker;

/**
 * How long one call's attempts may wait under its deadline, so that one dead or hung node cannot
 * eat it all; each {@link CallDecider} holds one, beside its {@link ReplicaChooser}, whose walk
 * (how many nodes the call could still move to) the shares are cut by.
 *
 * <ul>
 *   <li>Borrow (a connect, or a wait for a free connection): at most {@code maxTimeoutWhenExhausted},
 *       and at most the time left divided by the candidates this call could still try (this one
 *       included), never below {@link #BORROW_FLOOR_NANOS} (nor above the time left). A node whose
 *       reconnect is pending thus costs one share, and the rest goes to the healthy replicas.
 *   <li>Reply (the wait for the run's reply): likewise its share of the time left, over the runs the
 *       call could still make (this one included; all of it for a command that may not run again),
 *       with the same floor. It is the run's read timeout on a pooled connection and its request's
 *       expiry on a multiplexed one.
 * </ul>
 *
 * A run that timed out after waiting at least {@code silentNodeAfter} may take its node out of
 * rotation ({@link HealthTracker#timedOut}, which wants corroboration); a shorter wait is not held
 * against the node.
 */
final class CallBudgets {
  /** The least a borrow or a reply wait gets under a deadline, however many candidates share it. */
  static final long BORROW_FLOOR_NANOS = 10_000_000;

  final Deadline deadline;
  private final DynoConfig cfg; // the call's snapshot: failover count, borrow and socket timeouts
  private final ReplicaChooser chooser;
  // The reply caps (ms; 0: the socket timeout's) of the last two runs sent (a hedged read has two
  // out at once), for judgeTimeout; an int, as a wait of 24 days or more blames a node just alike.
  private Host waitHost;
  private int waitCap;
  private Host earlierWaitHost;
  private int earlierWaitCap;

  CallBudgets(ReplicaChooser chooser, Deadline deadline, DynoConfig cfg) {
    this.chooser = chooser;
    this.deadline = deadline;
    this.cfg = cfg;
  }

  /**
   * How long the borrow for the attempt about to start may wait, or -1 when the deadline has passed
   * (ask {@code pastDeadline}).
   */
  long borrowBudget() {
    long left = deadline.leftNanos();
    if (left <= 0) {
      return -1;
    }
    long budget = Math.min(cfg.maxTimeoutWhenExhausted().toNanos(), left);
    if (deadline.isSet()) {
      int after = chooser.movesLeft(cfg.maxFailoverCount());
      if (after > 0) {
        budget = Math.min(budget, Math.max(left / (after + 1), Math.min(left, BORROW_FLOOR_NANOS)));
      }
    }
    return budget;
  }

  /**
   * The reply cap (ms) of a run on {@code host} after which {@code runsAfter} more runs may still
   * need the time left, sharing it with this one, so that a silent node leaves the rest to the replicas after it: 0 without a deadline (the
   * socket's timeout holds), -1 when the deadline has passed. Remembers the wait, for
   * {@link #judgeTimeout}.
   */
  long replyCap(Host host, int runsAfter) {
    long cap = 0;
    if (deadline.isSet()) {
      cap = deadline.readCapMillis(Math.max(0, runsAfter) + 1, BORROW_FLOOR_NANOS);
      if (cap < 0) {
        return -1;
      }
    }
    earlierWaitHost = waitHost;
    earlierWaitCap = waitCap;
    waitHost = host;
    waitCap = (int) Math.min(cap, Integer.MAX_VALUE);
    return cap;
  }

  /**
   * A run on {@code host} timed out waiting for its reply: the node may be taken out of rotation
   * when that wait was long enough to call it silent, and is not blamed when its share was short.
   */
  void judgeTimeout(Host host, HealthTracker health) {
    long socket = cfg.socketTimeout().toMillis();
    int cap = host.equals(waitHost) ? waitCap : host.equals(earlierWaitHost) ? earlierWaitCap : 0;
    long waited = cap > 0 ? Math.min(cap, socket) : socket;
    health.timedOut(host, waited * 1_000_000);
  }

  /**
   * For a run that waited on other work after it started (a scattered call's part): its read
   * timeout now, so that it ends by the deadline (ms, at least 1); 0 without a deadline.
   */
  long readCapNow() {
    return deadline.isSet() ? deadline.leftMillisAtLeastOne() : 0;
  }
}
