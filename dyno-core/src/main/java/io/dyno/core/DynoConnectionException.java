package io.dyno.core;

import io.dyno.core.spi.FailureKind;

/**
 * A command could not be completed on a node: the connection failed, timed out, or Dynomite
 * answered with a replica error ({@code Peer Node …}, {@code Failed to achieve Quorum} …), and no
 * retry or failover was allowed or left. The driver's own exception is the cause.
 */
public class DynoConnectionException extends DynoException {
  private final transient Host host;
  private final FailureKind kind;

  public DynoConnectionException(String message, Host host, FailureKind kind, Throwable cause) {
    super(message, cause);
    this.host = host;
    this.kind = kind;
  }

  /** The node the failure happened on (null when none was reached). */
  public Host host() { return host; }

  /** What kind of failure it was. */
  public FailureKind kind() { return kind; }
}
