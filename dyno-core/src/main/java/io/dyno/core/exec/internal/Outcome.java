package io.dyno.core.exec.internal;

import io.dyno.core.DynoConnectionException;
import io.dyno.core.DynoException;
import io.dyno.core.PoolTimeoutException;

/** How one call ended, as recorded in {@code dyno.op} (tag {@code outcome}). */
enum Outcome {
  SUCCESS("success"),
  /** The server answered with an error about the data (WRONGTYPE, syntax): the caller's problem. */
  DATA_ERROR("data_error"),
  TIMEOUT("timeout"),
  REPLICA_ERROR("replica_error"),
  CONNECTION_ERROR("connection_error"),
  POOL_TIMEOUT("pool_timeout"),
  DEADLINE_EXCEEDED("deadline_exceeded"),
  NO_HOSTS("no_hosts"),
  ERROR("error");

  private final String tag;

  Outcome(String tag) {
    this.tag = tag;
  }

  /** The metric tag value. */
  String tag() {
    return tag;
  }

  /** The outcome of a call that gave up after {@code last} (null: nothing was tried). */
  static Outcome ofLastFailure(DynoException last) {
    if (last == null) {
      return NO_HOSTS;
    }
    if (last instanceof PoolTimeoutException) {
      return POOL_TIMEOUT;
    }
    if (last instanceof DynoConnectionException c && c.kind() != null) {
      return switch (c.kind()) {
        case TIMEOUT -> TIMEOUT;
        case REPLICA -> REPLICA_ERROR;
        case DATA -> DATA_ERROR;
        case CONNECTION -> CONNECTION_ERROR;
      };
    }
    return ERROR;
  }
}
