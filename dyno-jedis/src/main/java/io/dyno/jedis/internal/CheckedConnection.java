package io.dyno.jedis.internal;

import java.io.IOException;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.PushConsumerChain;
import redis.clients.jedis.util.RedisInputStream;

/**
 * A Jedis connection that can tell whether bytes are waiting that no command asked for. A server
 * that answers with more than one reply (or with junk after it) would otherwise leave them for
 * the next borrower, who would read them as its own reply: a poisoned pooled connection. Such a
 * connection counts as broken ({@link JedisNodeConnection#isBroken()}) and is discarded.
 */
final class CheckedConnection extends Connection {
  private volatile RedisInputStream in;

  CheckedConnection(HostAndPort hostAndPort, JedisClientConfig config) {
    super(hostAndPort, config);
  }

  @Override
  protected Object protocolRead(RedisInputStream is, PushConsumerChain chain) {
    in = is;
    return super.protocolRead(is, chain);
  }

  /** Bytes buffered or on the socket that no sent command is waiting for (call between commands only). */
  boolean hasUnreadBytes() {
    RedisInputStream s = in;
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
