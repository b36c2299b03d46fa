package io.dyno.jedis.internal.mux;

import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * A request that never left the client: refused at the in-flight limit, out of time while still
 * queued for the write, or queued when its connection closed. Nothing reached the node, so the
 * engine may try it elsewhere whatever its idempotency ({@link MuxTransport#refusedUnsent}); after
 * a close, the same node too ({@link MuxTransport#resendableToSameNode}).
 */
public class NotSentException extends JedisConnectionException {
  private final boolean connectionClosed;

  NotSentException(String message) {
    super(message);
    this.connectionClosed = false;
  }

  NotSentException(String message, Throwable cause) {
    this(message, cause, false);
  }

  NotSentException(String message, Throwable cause, boolean connectionClosed) {
    super(message, cause);
    this.connectionClosed = connectionClosed;
  }

  /** It was queued on a connection that closed before writing it (not refused, not out of time). */
  public boolean connectionClosed() {
    return connectionClosed;
  }
}
