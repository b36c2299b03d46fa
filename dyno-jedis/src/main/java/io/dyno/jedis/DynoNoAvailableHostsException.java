package io.dyno.jedis;

import io.dyno.core.DynoException;
import io.dyno.core.NoAvailableHostsException;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * No node could take the command: none is known, up, or owning the key (dyno-core's
 * {@link NoAvailableHostsException} is the cause, each refused candidate a suppressed exception of it).
 * A {@link JedisConnectionException}, as Jedis raises when it cannot reach its server.
 */
public class DynoNoAvailableHostsException extends JedisConnectionException implements DynoFailure {
  /**
   * The client's translation of dyno-core's failure; applications have no reason to make one.
   *
   * @param message what the caller sees (the core exception's message, or more context)
   * @param cause dyno-core's exception
   */
  public DynoNoAvailableHostsException(String message, DynoException cause) {
    super(message, cause);
  }

  @Override
  public DynoException dynoCause() {
    return (DynoException) getCause();
  }
}
