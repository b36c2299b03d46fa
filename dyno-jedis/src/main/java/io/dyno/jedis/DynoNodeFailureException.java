package io.dyno.jedis;

import io.dyno.core.DynoConnectionException;
import io.dyno.core.DynoException;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The command failed on a node (connection broken or timed out, or a Dynomite replica error) and no
 * retry or failover was allowed or left (dyno-core's {@link DynoConnectionException}, naming the node
 * and the kind of failure, is the cause). A {@link JedisConnectionException}, as Jedis raises for a
 * broken connection.
 */
public class DynoNodeFailureException extends JedisConnectionException implements DynoFailure {
  /**
   * The client's translation of dyno-core's failure; applications have no reason to make one.
   *
   * @param message what the caller sees (the core exception's message, or more context)
   * @param cause dyno-core's exception
   */
  public DynoNodeFailureException(String message, DynoException cause) {
    super(message, cause);
  }

  @Override
  public DynoException dynoCause() {
    return (DynoException) getCause();
  }
}
