package io.dyno.jedis;

import io.dyno.jedis.internal.Refusals;

/** The internals' refusals as this package's exceptions (see {@link Refusals}). */
enum ApiRefusals implements Refusals {
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
}
