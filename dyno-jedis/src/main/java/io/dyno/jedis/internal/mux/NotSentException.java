package io.dyno.jedis.internal.mux;

import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * A request that never left the client: refused at the in-flight limit, out of time while still
 * queued for the write, or queued when its connection closed. Nothing reached the node, so the
 * engine may try it elsewhere whatever its idempotency, and after a close the same node too (the
 * transport's {@code report} reads it so).
 */
public class NotSentException extends JedisConnectionException {
  private final boolean connectionClosed;
  private final boolean nodeUnreachable;
  private long behindUnansweredNanos;

  NotSentException(String message) {
    super(message);
    this.connectionClosed = false;
    this.nodeUnreachable = false;
  }

  NotSentException(String message, Throwable cause) {
    this(message, cause, false);
  }

  NotSentException(String message, Throwable cause, boolean connectionClosed) {
    this(message, cause, connectionClosed, false);
  }

  private NotSentException(
      String message, Throwable cause, boolean connectionClosed, boolean nodeUnreachable) {
    super(message, cause);
    this.connectionClosed = connectionClosed;
    this.nodeUnreachable = nodeUnreachable;
  }

  /**
   * No shared connection to the node could be opened for the request (refused, or the connect timed
   * out): nothing was sent, and the node is to blame.
   */
  public static NotSentException unreachable(String message, Throwable cause) {
    return new NotSentException(message, cause, false, true);
  }

  /**
   * Out of time while queued behind a written request the node had left unanswered for {@code
   * nanos}: the node's silence, though this request never left the client.
   */
  static NotSentException behindUnanswered(String message, Throwable cause, long nanos) {
    NotSentException e = new NotSentException(message, cause);
    e.behindUnansweredNanos = nanos;
    return e;
  }

  /** How long the node had left the request this one queued behind unanswered (0: not known). */
  public long behindUnansweredNanos() {
    return behindUnansweredNanos;
  }

  /** It was queued on a connection that closed before writing it (not refused, not out of time). */
  public boolean connectionClosed() {
    return connectionClosed;
  }

  /** No connection to the node could be opened for it. */
  public boolean nodeUnreachable() {
    return nodeUnreachable;
  }
}
