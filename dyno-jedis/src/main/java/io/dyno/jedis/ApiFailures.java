package io.dyno.jedis;

import io.dyno.core.DynoException;
import io.dyno.jedis.internal.PublicFailures;
import redis.clients.jedis.exceptions.JedisException;

/** dyno-core's failures as this package's exceptions (see {@link PublicFailures}). */
enum ApiFailures implements PublicFailures {
  INSTANCE;

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
