package io.dyno.jedis.internal.mux;

import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * A request that never left the client: refused at the in-flight limit, out of time while still
 * queued for the write, or queued when its connection closed. Nothing reached the node, so the
 * engine may try it elsewhere whatever its idempotency ({@link MuxTransport#refusedUnsent}).
 */
public class NotSentException extends JedisConnectionException {
  NotSentException(String message) {
    super(message);
  }

  NotSentException(String message, Throwable cause) {
    super(message, cause);
  }
}
