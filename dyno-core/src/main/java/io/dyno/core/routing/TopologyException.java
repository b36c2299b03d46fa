package io.dyno.core.routing;

import io.dyno.core.DynoException;

/** A topology that cannot be served (no nodes, inconsistent racks, unknown nodes); the message lists the hosts involved. */
public final class TopologyException extends DynoException {
  public TopologyException(String message) {
    super(message);
  }
}
