package io.dyno.jedis;

import io.dyno.core.DynoException;
import io.dyno.core.PoolTimeoutException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * No connection to the node became free within the borrow timeout; the command was not sent
 * (dyno-core's {@link PoolTimeoutException}, naming the node and the callers waiting, is the cause).
 * A {@link JedisException}, not a connection error, as {@code JedisPool}'s "Could not get a resource
 * from the pool" is.
 */
public class DynoPoolExhaustedException extends JedisException implements DynoFailure {
  /**
   * The client's translation of dyno-core's failure; applications have no reason to make one.
   *
   * @param message what the caller sees (the core exception's message, or more context)
   * @param cause dyno-core's exception
   */
  public DynoPoolExhaustedException(String message, DynoException cause) {
    super(message, cause);
  }

  @Override
  public DynoException dynoCause() {
    return (DynoException) getCause();
  }
}
