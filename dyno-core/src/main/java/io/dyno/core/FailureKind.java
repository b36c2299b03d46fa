package io.dyno.core.spi;

/** What a failed operation means for the connection, the node and the next attempt. */
public enum FailureKind {
  /** I/O error or broken protocol: discard the connection, lower the node's health, try a replica. */
  CONNECTION,
  /** No reply within the socket timeout: as {@link #CONNECTION} (the reply may still be in flight). */
  TIMEOUT,
  /**
   * A Dynomite replica error ({@code Peer Node …}, {@code Storage: Datastore refused connection},
   * {@code Failed to achieve Quorum}): the connection is fine, another rack may succeed.
   */
  REPLICA,
  /** A data error (WRONGTYPE, syntax …): the caller's problem; connection and node stay healthy. */
  DATA;

  /**
   * Whether an error reply is one of Dynomite's replica errors, as listed in the server contract.
   *
   * @param message the error reply's text, or null
   * @return true for a replica error (another rack may succeed)
   */
  public static boolean isDynomiteReplicaError(String message) {
    if (message == null) {
      return false;
    }
    return message.contains("Peer: Peer Node")
        || message.contains("Storage: Datastore refused connection")
        || message.contains("Dynomite: Failed to achieve Quorum")
        || message.contains("Dynomite: Dynomite's current state does not allow this request");
  }
}
