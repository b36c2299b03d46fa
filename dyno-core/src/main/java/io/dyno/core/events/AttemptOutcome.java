package io.dyno.core.events;

import io.dyno.core.FailureKind;

/** How one attempt ended. The failure kinds are the driver's classification ({@link FailureKind}). */
public enum AttemptOutcome {
  /** The node answered, and its answer is the call's result. */
  SUCCESS,
  /**
   * The node answered after the call already had its result or had ended (a hedged read's slower
   * attempt; an answer after the deadline): the answer was dropped.
   */
  DISCARDED,
  /**
   * The command was never sent: no connection could be had (borrow timeout, connect failure), the
   * connection refused it at capacity or closed before writing it, the consistency switch failed,
   * or the call's deadline passed (or the call ended) before it could be sent. Any command may move
   * on after this, idempotent or not.
   */
  NOT_SENT,
  /** An I/O error after sending: the connection was discarded and the node's health lowered. */
  CONNECTION_ERROR,
  /** No reply within the read timeout: as {@link #CONNECTION_ERROR}. */
  TIMEOUT,
  /**
   * A Dynomite replica error ({@code Peer Node …}, {@code Failed to achieve Quorum} …): the
   * connection is fine, another rack may succeed.
   */
  REPLICA_ERROR,
  /** A data error (WRONGTYPE, syntax …): the caller's, it ends the call. */
  DATA_ERROR
}
