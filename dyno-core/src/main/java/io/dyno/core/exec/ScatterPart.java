package io.dyno.core.exec;

import io.dyno.core.Host;
import io.dyno.core.spi.NodeConnection;
import java.util.List;
import java.util.Objects;

/**
 * One node's share of a scattered call (see {@link DynoExecutor#scatter}): where it may run (its
 * candidates in preference order, as routed by the caller), whether it may be re-run after a
 * failure whose effect is unknown, and what it sends. After the scatter it holds its result or
 * its failure; one part's failure never fails the others.
 */
public final class ScatterPart<C extends NodeConnection, R> {
  private final String command;
  private final List<Host> candidates;
  private final boolean idempotent;
  private final SplitOperation<C, R> operation;
  private boolean done;
  private R result;
  private RuntimeException failure;

  /**
   * A part, not run yet.
   *
   * @param command the command's name, for metrics and errors
   * @param candidates the nodes that may run it, in preference order; not empty
   * @param idempotent whether it may run again after a failure whose outcome is unknown
   * @param operation what it sends and reads; not null
   * @throws IllegalArgumentException when {@code candidates} is empty
   */
  public ScatterPart(
      String command, List<Host> candidates, boolean idempotent, SplitOperation<C, R> operation) {
    this.command = Objects.requireNonNull(command, "command");
    this.candidates = Objects.requireNonNull(candidates, "candidates");
    if (candidates.isEmpty()) {
      throw new IllegalArgumentException(
          command + ": a scattered part needs at least one candidate node");
    }
    this.idempotent = idempotent;
    this.operation = Objects.requireNonNull(operation, "operation");
  }

  /** {@return the command's name} */
  public String command() {
    return command;
  }
  /** {@return the nodes that may run the part, in preference order} */
  public List<Host> candidates() {
    return candidates;
  }
  /** {@return whether the part may run again after a failure whose outcome is unknown} */
  public boolean idempotent() {
    return idempotent;
  }
  /** {@return what the part sends and reads} */
  public SplitOperation<C, R> operation() {
    return operation;
  }

  /** {@return the node the part prefers (its first candidate)} */
  public Host owner() {
    return candidates.get(0);
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
      throw new IllegalStateException(command + " to " + owner() + ": the part has not run");
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
