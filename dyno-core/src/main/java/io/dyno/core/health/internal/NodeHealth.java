package io.dyno.core.health.internal;

import io.dyno.core.config.DynoConfig;
import io.dyno.core.time.Scheduler;
import io.dyno.core.topology.NodeState;

/**
 * One node's standing as {@link HealthTracker} keeps it: in rotation or not, steered away from or
 * not, its decaying error score and its run of probe answers. Each transition is made under the
 * node's lock and says whether it changed the standing; the tracker logs, counts and schedules the
 * probes. The two flags are read without the lock on every call's path.
 */
final class NodeHealth {
  /** What a latency probe of a steered node decided. */
  enum SteerProbe {
    /** The node is no longer steered (out of rotation meanwhile): probing stops. */
    GONE,
    /** The probes in a row it needed answered in time: it is preferred again. */
    BACK,
    /** Still steered: probe again. */
    AGAIN
  }

  volatile boolean up = true;
  volatile boolean steered;
  /** The node's Dynomite state as last learnt ({@link NodeState#NORMAL} until one is). */
  volatile NodeState state = NodeState.NORMAL;

  volatile Scheduler.Cancellable probeTask;

  private double score;
  private long lastNanos;
  private int failedProbes;
  private int goodProbes; // in a row that answered in time (re-admission, or the end of steering)
  private long steerBoundNanos;
  private int probesToReturn; // good probes in a row that end the steering

  /** A connection failure at {@code now}: true when it took the node out of rotation. */
  synchronized boolean failed(long now, DynoConfig cfg) {
    score = score(now, cfg) + 1.0;
    lastNanos = now;
    return up && score >= cfg.healthErrorThreshold() && takeOut();
  }

  /** Out of rotation (found silent): true when it was in. */
  synchronized boolean takeOutIfUp() {
    return up && takeOut();
  }

  private boolean takeOut() {
    up = false;
    steered = false; // out of rotation says more; the re-admission probes take over
    failedProbes = 0;
    goodProbes = 0;
    return true;
  }

  /** The error score at {@code now}: each failure's 1 halved every {@code healthHalfLife} since. */
  synchronized double score(long now, DynoConfig cfg) {
    if (score == 0) {
      return 0;
    }
    double halfLives = (double) (now - lastNanos) / cfg.healthHalfLife().toNanos();
    return score * Math.pow(0.5, Math.max(0, halfLives));
  }

  /**
   * Steered away from until {@code probesToReturn} latency probes in a row answer within {@code
   * boundNanos}: true unless it was out of rotation or steered already.
   */
  synchronized boolean steer(long boundNanos, int probesToReturn) {
    if (!up || steered) {
      return false;
    }
    steered = true;
    steerBoundNanos = boundNanos;
    this.probesToReturn = probesToReturn;
    goodProbes = 0;
    return true;
  }

  /**
   * A re-admission probe answered in time ({@code good}) or not: true when it was the {@code
   * needed}th good one in a row, which brings the node back in rotation with a clean score.
   */
  synchronized boolean readmissionProbed(boolean good, int needed) {
    goodProbes = good ? goodProbes + 1 : 0;
    failedProbes = good ? 0 : failedProbes + 1;
    if (goodProbes < needed) {
      return false;
    }
    up = true;
    score = 0;
    goodProbes = 0;
    return true;
  }

  /** Re-admission probes that failed in a row (0: the last one was good). */
  synchronized int failedProbes() {
    return failedProbes;
  }

  /** A latency probe of a steered node took {@code tookNanos} (-1: no answer). */
  synchronized SteerProbe steerProbed(long tookNanos) {
    if (!up || !steered) {
      return SteerProbe.GONE;
    }
    boolean good = tookNanos >= 0 && tookNanos <= steerBoundNanos;
    goodProbes = good ? goodProbes + 1 : 0;
    if (goodProbes < probesToReturn) {
      return SteerProbe.AGAIN;
    }
    steered = false;
    goodProbes = 0;
    return SteerProbe.BACK;
  }

  /** The good probes in a row that end the current (or last) steering. */
  synchronized int probesToReturn() {
    return probesToReturn;
  }
}
