package io.dyno.jedis;

import io.dyno.core.DynoException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Any other failure of Dyno itself on a call: a topology that cannot be served, a client shutting
 * down under the call, an interrupted wait. The message says what; dyno-core's exception is the cause.
 */
public class DynoClientException extends JedisException implements DynoFailure {
  /**
   * The client's translation of dyno-core's failure; applications have no reason to make one.
   *
   * @param message what the caller sees (the core exception's message, or more context)
   * @param cause dyno-core's exception
   */
  public DynoClientException(String message, DynoException cause) {
    super(message, cause);
  }

  @Override
  public DynoException dynoCause() {
    return (DynoException) getCause();
  }
}
