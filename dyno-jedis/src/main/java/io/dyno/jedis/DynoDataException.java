package io.dyno.jedis;

import io.dyno.core.DynoException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The server answered, but Dyno cannot hand the answer over: a stored value that does not
 * decompress (corrupt, truncated, larger than {@code maxDecompressedSize}) or a reply of another
 * shape than the command returns. The message names the key or command. A {@link JedisDataException},
 * as for an error reply: the connection is healthy, retrying will not help.
 */
public class DynoDataException extends JedisDataException implements DynoFailure {
  /**
   * The client's translation of dyno-core's failure; applications have no reason to make one.
   *
   * @param message what the caller sees (the core exception's message, or more context)
   * @param cause dyno-core's exception
   */
  public DynoDataException(String message, DynoException cause) {
    super(message, cause);
  }

  @Override
  public DynoException dynoCause() {
    return (DynoException) getCause();
  }
}
