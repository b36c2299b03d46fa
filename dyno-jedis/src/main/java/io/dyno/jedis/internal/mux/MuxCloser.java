package io.dyno.jedis.internal.mux;

import java.util.function.IntFunction;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * How a part of a connection closes it for good when the node or the stream fails (a peer close, an
 * I/O error, a malformed reply, a node that stopped answering): everything the connection holds
 * fails, on the channel and on its caller sockets.
 */
interface MuxCloser {
  /**
   * Event loop: closes; everything in flight or queued fails with the exception {@code why} makes
   * for their count. Nothing happens when it already closed.
   */
  void fail(IntFunction<JedisConnectionException> why);

  /** Any thread: closes with {@code e} (on the event loop, or here when the loop is gone). */
  void failFromAnyThread(JedisConnectionException e);
}
