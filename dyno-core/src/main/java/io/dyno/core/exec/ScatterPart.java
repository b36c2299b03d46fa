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

  public ScatterPart(String command, List<Host> candidates, boolean idempotent, SplitOperation<C, R> operation) {
    this.command = Objects.requireNonNull(command, "command");
    this.candidates = Objects.requireNonNull(candidates, "candidates");
    if (candidates.isEmpty()) {
      throw new IllegalArgumentException(command + ": a scattered part needs at least one candidate node");
    }
    this.idempotent = idempotent;
    this.operation = Objects.requireNonNull(operation, "operation");
  }

  public String command() { return command; }
  public List<Host> candidates() { return candidates; }
  public boolean idempotent() { return idempotent; }
  public SplitOperation<C, R> operation() { return operation; }

  /** The node the part prefers (its first candidate). */
  public Host owner() {
    return candidates.get(0);
  }

  /** True once the scatter ran this part and it succeeded. */
  public boolean succeeded() {
    return done && failure == null;
  }

  /** The part's result; throws its failure when it failed. */
  public R result() {
    if (failure != null) {
      throw failure;
    }
    if (!done) {
      throw new IllegalStateException(command + " to " + owner() + ": the part has not run");
    }
    return result;
  }

  /** The part's failure, or null. */
  public RuntimeException failure() {
    return failure;
  }

  /** Called by the executor running the scatter. */
  public void complete(R value) {
    this.result = value;
    this.failure = null;
    this.done = true;
  }

  /** Called by the executor running the scatter. */
  public void fail(RuntimeException e) {
    this.failure = Objects.requireNonNull(e, "failure");
    this.done = true;
  }
}
