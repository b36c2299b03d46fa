package io.dyno.jedis;

import io.dyno.core.DeadlineExceededException;
import io.dyno.core.DynoException;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The call's deadline passed before it could finish (dyno-core's {@link DeadlineExceededException} is
 * the cause). A {@link JedisConnectionException}, as Jedis raises for a read that timed out.
 */
public class DynoDeadlineExceededException extends JedisConnectionException implements DynoFailure {
  /**
   * The client's translation of dyno-core's failure; applications have no reason to make one.
   *
   * @param message what the caller sees (the core exception's message, or more context)
   * @param cause dyno-core's exception
   */
  public DynoDeadlineExceededException(String message, DynoException cause) {
    super(message, cause);
  }

  @Override
  public DynoException dynoCause() {
    return (DynoException) getCause();
  }
}
