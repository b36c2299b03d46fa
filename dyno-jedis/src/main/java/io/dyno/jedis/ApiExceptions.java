package io.dyno.jedis;

import io.dyno.core.DynoException;
import io.dyno.jedis.internal.PublicExceptions;
import redis.clients.jedis.exceptions.JedisException;

/** The internals' refusals and dyno-core's failures as this package's exceptions (see {@link PublicExceptions}). */
enum ApiExceptions implements PublicExceptions {
  INSTANCE;

  @Override
  public RuntimeException unsupported(String command, String reason) {
    return new UnsupportedCommandException(command, reason);
  }

  @Override
  public RuntimeException crossNodeKeys(String command, Object firstKey, Object otherKey) {
    return new CrossNodeKeysException(command, firstKey, otherKey);
  }

  @Override
  public RuntimeException clientClosed(String applicationName, String what) {
    return new ClientClosedException(applicationName, what);
  }

  @Override
  public JedisException deadlineExceeded(String message, DynoException cause) {
    return new DynoDeadlineExceededException(message, cause);
  }

  @Override
  public JedisException poolExhausted(String message, DynoException cause) {
    return new DynoPoolExhaustedException(message, cause);
  }

  @Override
  public JedisException noAvailableHosts(String message, DynoException cause) {
    return new DynoNoAvailableHostsException(message, cause);
  }

  @Override
  public JedisException nodeFailure(String message, DynoException cause) {
    return new DynoNodeFailureException(message, cause);
  }

  @Override
  public JedisException data(String message, DynoException cause) {
    return new DynoDataException(message, cause);
  }

  @Override
  public JedisException client(String message, DynoException cause) {
    return new DynoClientException(message, cause);
  }
}
