package io.dyno.jedis;

import redis.clients.jedis.exceptions.JedisException;

/**
 * A call on a {@link DynoJedisClient} (or one of its views, pipelines, scans or its asynchronous
 * API) after the client was closed. Nothing was sent. A {@link JedisException}, as Jedis's own
 * pooled clients raise one when their closed pool is asked for a connection.
 */
public class ClientClosedException extends JedisException {
  /** Serialized with the exception: which client it was. */
  private final String applicationName;

  /**
   * The client's own refusal; applications have no reason to make one.
   *
   * @param applicationName the closed client's application name
   * @param what what the refused call did not do, e.g. "SCAN was not sent"
   */
  public ClientClosedException(String applicationName, String what) {
    super("DynoJedisClient '" + applicationName + "' is closed; " + what);
    this.applicationName = applicationName;
  }

  /** {@return the application name of the closed client} */
  public String applicationName() {
    return applicationName;
  }
}
