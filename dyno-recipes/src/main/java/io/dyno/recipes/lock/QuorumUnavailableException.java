package io.dyno.recipes.lock;

import io.dyno.core.DynoException;
import java.util.List;

/**
 * Too few voters could be reached to ever form a majority: acquiring (or extending) cannot succeed
 * however long one waits. Names every unreachable voter and why.
 */
public final class QuorumUnavailableException extends DynoException {
  private final List<String> unreachable;

  QuorumUnavailableException(String message, List<String> unreachable) {
    super(message);
    this.unreachable = List.copyOf(unreachable);
  }

  /** The unreachable voters, each as {@code address:datastorePort (reason)}. */
  public List<String> unreachableVoters() {
    return unreachable;
  }
}
