package io.dyno.core.engine.internal;

import io.dyno.core.Host;
import java.util.Objects;

/**
 * One node's share of a scattered call (see {@link DynoExecutor#scatter}): its {@link CallSpec}
 * (where it may run, its candidates in preference order as routed by the caller; whether it may be
 * re-run after a failure whose effect is unknown) and what it sends. After the scatter it holds its result or
 * its failure; one part's failure never fails the others.
 */
public final class ScatterPart<C extends NodeConnection, R> {
  private final CallSpec call;
  private final SplitOperation<C, R> operation;
  private boolean done;
  private R result;
  private RuntimeException failure;

  /**
   * A part, not run yet.
   *
   * @param call the part's call: command, candidates (not empty), kind, idempotency, consistency
   * @param operation what it sends and reads; not null
   * @throws IllegalArgumentException when the call has no candidates
   */
  public ScatterPart(CallSpec call, SplitOperation<C, R> operation) {
    this.call = Objects.requireNonNull(call, "call");
    if (call.candidates() == null || call.candidates().isEmpty()) {
      throw new IllegalArgumentException(
          call.command() + ": a scattered part needs at least one candidate node");
    }
    this.operation = Objects.requireNonNull(operation, "operation");
  }

  /** {@return the part's call} */
  public CallSpec call() {
    return call;
  }
  /** {@return what the part sends and reads} */
  public SplitOperation<C, R> operation() {
    return operation;
  }

  /** {@return the node the part prefers (its first candidate)} */
  public Host owner() {
    return call.candidates().get(0);
  }

  /** {@return true once the scatter ran this part and it succeeded} */
  public boolean succeeded() {
    return done && failure == null;
  }

  /**
   * {@return the part's result}
   *
   * @throws RuntimeException the part's failure, when it failed
   * @throws IllegalStateException when the part has not run
   */
  public R result() {
    if (failure != null) {
      throw failure;
    }
    if (!done) {
      throw new IllegalStateException(call.command() + " to " + owner() + ": the part has not run");
    }
    return result;
  }

  /** {@return the part's failure, or null when it succeeded or has not run} */
  public RuntimeException failure() {
    return failure;
  }

  /**
   * Records the part's result. Called by the executor running the scatter, on the scatter's thread.
   *
   * @param value the result
   */
  public void complete(R value) {
    this.result = value;
    this.failure = null;
    this.done = true;
  }

  /**
   * Records the part's failure. Called by the executor running the scatter, on the scatter's thread.
   *
   * @param e the failure; not null
   */
  public void fail(RuntimeException e) {
    this.failure = Objects.requireNonNull(e, "failure");
    this.done = true;
  }
}
