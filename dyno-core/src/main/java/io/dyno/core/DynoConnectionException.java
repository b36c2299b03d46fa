package io.dyno.core;

/**
 * A command could not be completed on a node: the connection failed, timed out, or Dynomite
 * answered with a replica error ({@code Peer Node …}, {@code Failed to achieve Quorum} …), and no
 * retry or failover was allowed or left. The driver's own exception is the cause.
 */
public class DynoConnectionException extends DynoException {
  private final transient Host host;
  /** What kind of failure it was. */
  private final FailureKind kind;

  /**
   * Creates the exception.
   *
   * @param message what failed, naming the node and the command
   * @param host the node the failure happened on, or null when none was reached
   * @param kind what kind of failure it was
   * @param cause the driver's exception
   */
  public DynoConnectionException(String message, Host host, FailureKind kind, Throwable cause) {
    super(message, cause);
    this.host = host;
    this.kind = kind;
  }

  /** {@return the node the failure happened on, or null when none was reached} Not serialized. */
  public Host host() {
    return host;
  }

  /** {@return what kind of failure it was} */
  public FailureKind kind() {
    return kind;
  }
}
