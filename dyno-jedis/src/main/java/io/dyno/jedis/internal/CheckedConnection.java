package io.dyno.jedis.internal;

import java.io.IOException;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.PushConsumerChain;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.util.RedisInputStream;

/**
 * A Jedis connection that can tell whether bytes are waiting that no command asked for. A server
 * that answers with more than one reply (or with junk after it) would otherwise leave them for
 * the next borrower, who would read them as its own reply: a poisoned pooled connection. Such a
 * connection counts as broken ({@link JedisNodeConnection#isBroken()}) and is discarded.
 *
 * <p>Replies are read through a {@link StrictReplyStream} over the connection's own stream (one per
 * stream, so a reconnect gets a new one), so a junk length line cannot make Jedis allocate what it
 * announces.
 */
final class CheckedConnection extends Connection {
  private volatile StrictReplyStream in;

  CheckedConnection(HostAndPort hostAndPort, JedisClientConfig config) {
    super(hostAndPort, config);
  }

  @Override
  protected Object protocolRead(RedisInputStream is, PushConsumerChain chain) {
    try {
      return super.protocolRead(strict(is), chain);
    } catch (JedisDataException e) {
      if (e.getMessage() == null || e.getMessage().isBlank()) {
        throw new JedisDataException(JedisNodeConnection.BLANK_ERROR_REPLY);
      }
      throw e;
    }
  }

  @Override
  protected void protocolReadPushes(RedisInputStream is, PushConsumerChain chain) {
    super.protocolReadPushes(strict(is), chain);
  }

  private StrictReplyStream strict(RedisInputStream is) {
    StrictReplyStream s = in;
    if (s == null || s.source() != is) {
      s = new StrictReplyStream(is);
      in = s;
    }
    return s;
  }

  /** Bytes buffered or on the socket that no sent command is waiting for (call between commands only). */
  boolean hasUnreadBytes() {
    StrictReplyStream s = in;
    if (s == null) {
      return false;
    }
    try {
      return s.available() > 0;
    } catch (IOException e) {
      return true;
    }
  }
}
