package io.dyno.core.spi;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.Host;

/**
 * One open connection to one node, implemented by a driver module (dyno-jedis wraps a Jedis
 * connection). dyno-core pools these, validates them and sets their consistency; it never
 * looks inside.
 */
public interface NodeConnection extends AutoCloseable {
  Host host();

  /** The level this connection currently runs at; null while it is the server's default. */
  ConsistencyLevel consistency();

  /**
   * Sends {@code DYNO_CONFIG:CONN_CONSISTENCY <level>} on its own and waits for {@code +OK}
   * (anything pipelined behind it would be dropped by Dynomite). Throws if the server refuses.
   */
  void setConsistency(ConsistencyLevel level) throws Exception;

  /** Keep-alive validation: a round trip that must succeed, or throw. */
  void ping() throws Exception;

  /** True once an I/O error or protocol desync made this connection unusable. */
  boolean isBroken();

  /** Closes the socket. Idempotent. */
  @Override
  void close();
}
