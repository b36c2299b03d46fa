package io.dyno.jedis.internal;

import io.dyno.core.DynoException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * dyno-core's failures made as the public API's Jedis exceptions ({@code DynoDeadlineExceededException}
 * and its kin); {@link JedisFailures} decides which, the API package makes them. Internal code
 * depends on this interface only, so the API package depends on the internals and never the other
 * way round.
 */
public interface PublicFailures {
  /** {@return the call's deadline passed} */
  JedisException deadlineExceeded(String message, DynoException cause);

  /** {@return no connection could be borrowed in time} */
  JedisException poolExhausted(String message, DynoException cause);

  /** {@return no node could take the call} */
  JedisException noAvailableHosts(String message, DynoException cause);

  /** {@return a node's connection failed} */
  JedisException nodeFailure(String message, DynoException cause);

  /** {@return the reply was not what the command returns} */
  JedisException data(String message, DynoException cause);

  /** {@return any other failure of dyno-core} */
  JedisException client(String message, DynoException cause);
}
