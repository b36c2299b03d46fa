package io.dyno.jedis.internal;

/**
 * The client's refusals, made as the public API's exceptions ({@code UnsupportedCommandException},
 * {@code CrossNodeKeysException}, {@code ClientClosedException}). The API package builds the client
 * and hands its implementation in; internal code depends on this interface only, so the API package
 * depends on the internals and never the other way round.
 */
public interface Refusals {
  /** {@return the refusal of {@code command}, which this client cannot serve, for {@code reason}} */
  RuntimeException unsupported(String command, String reason);

  /** {@return the refusal of {@code command}, whose keys must share a node and do not} */
  RuntimeException crossNodeKeys(String command, Object firstKey, Object otherKey);

  /** {@return the failure of a call on the closed client {@code applicationName}; {@code what} was refused} */
  RuntimeException clientClosed(String applicationName, String what);
}
