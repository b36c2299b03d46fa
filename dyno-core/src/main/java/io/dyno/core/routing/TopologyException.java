package io.dyno.core.routing;

import io.dyno.core.DynoException;

/**
 * A topology that cannot be served (no nodes, inconsistent racks, unknown nodes, a hash tag other
 * than the cluster's); the message lists the hosts or settings involved.
 */
public final class TopologyException extends DynoException {
  /**
   * Creates the exception.
   *
   * @param message what cannot be served, naming the hosts or settings involved
   */
  public TopologyException(String message) {
    super(message);
  }

  /**
   * Creates the exception.
   *
   * @param message what cannot be served, naming the hosts or settings involved
   * @param cause the underlying failure
   */
  public TopologyException(String message, Throwable cause) {
    super(message, cause);
  }
}
