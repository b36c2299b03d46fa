package io.dyno.jedis.internal;

import io.dyno.core.DynoException;

/**
 * A reply Dyno cannot hand over: a stored value that does not decode, or a reply of another shape
 * than the command returns. Callers see it as {@code DynoDataException} (see {@link JedisFailures}).
 */
public final class UnreadableReplyException extends DynoException {
  public UnreadableReplyException(String message) {
    super(message);
  }

  public UnreadableReplyException(String message, Throwable cause) {
    super(message, cause);
  }
}
