package io.dyno.core;

/** What a failed operation means for the connection, the node and the next attempt. */
public enum FailureKind {
  /** I/O error or broken protocol: discard the connection, lower the node's health, try a replica. */
  CONNECTION,
  /** No reply within the socket timeout: as {@link #CONNECTION} (the reply may still be in flight). */
  TIMEOUT,
  /**
   * A Dynomite replica error ({@code Peer Node …}, {@code Storage: Datastore refused connection},
   * {@code Failed to achieve Quorum}) or the local store's refusal of a write (OOM, MISCONF,
   * READONLY): the connection is fine, another rack may succeed.
   */
  REPLICA,
  /** A data error (WRONGTYPE, syntax …): the caller's problem; connection and node stay healthy. */
  DATA;

  /**
   * Whether an error reply is one of Dynomite's replica errors, as listed in the server contract, or
   * a {@linkplain #isLocalStoreRefusal refusal by the node's own store}: either way the connection
   * is fine and another rack may succeed.
   *
   * @param message the error reply's text, or null
   * @return true for a replica error (another rack may succeed)
   */
  public static boolean isDynomiteReplicaError(String message) {
    if (message == null) {
      return false;
    }
    return message.contains("Peer: Peer Node")
        || message.contains("Dynomite: Failed to achieve Quorum")
        || message.contains("Dynomite: Dynomite's current state does not allow this request")
        || isLocalStoreRefusal(message);
  }

  /**
   * Whether an error reply is the node's own Redis refusing the command: Dynomite's
   * {@code Storage: Datastore refused connection} (its Redis is gone), or Redis's OOM (maxmemory
   * reached), MISCONF (cannot persist) or READONLY (a replica). Through Dynomite such a write was
   * already forwarded to the other racks when the local store answered, so it may be applied there.
   *
   * @param message the error reply's text, or null
   * @return true for a refusal by the node's own store
   */
  public static boolean isLocalStoreRefusal(String message) {
    if (message == null) {
      return false;
    }
    return message.contains("Storage: Datastore refused connection")
        || message.startsWith("OOM ")
        || message.startsWith("MISCONF ")
        || message.startsWith("READONLY ");
  }
}
