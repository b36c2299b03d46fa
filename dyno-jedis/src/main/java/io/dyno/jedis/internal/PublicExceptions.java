package io.dyno.jedis.internal;

import io.dyno.core.DynoException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The one way internal code raises the public API's exceptions: the client's refusals
 * ({@code UnsupportedCommandException}, {@code CrossNodeKeysException},
 * {@code ClientClosedException}) and dyno-core's failures as Jedis exceptions
 * ({@code DynoDeadlineExceededException} and its kin, chosen by {@link JedisFailures}). The API
 * package builds the client and hands its implementation in; internal code depends on this
 * interface only, so the API package depends on the internals and never the other way round.
 */
public interface PublicExceptions {
  /** {@return the refusal of {@code command}, which this client cannot serve, for {@code reason}} */
  RuntimeException unsupported(String command, String reason);

  /** {@return the refusal of {@code command}, whose keys must share a node and do not} */
  RuntimeException crossNodeKeys(String command, Object firstKey, Object otherKey);

  /** {@return the failure of a call on the closed client {@code applicationName}; {@code what} was refused} */
  RuntimeException clientClosed(String applicationName, String what);

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
