package io.dyno.core.pool.internal;

import io.dyno.core.spi.NodeConnection;

/** One pooled connection: the driver's connection plus its bag state and last-use time. */
public final class Pooled<C extends NodeConnection> extends ConcurrentBag.Entry {
  final C connection;
  final long createdNanos;
  volatile long lastUsedNanos;
  /** Last successful keep-alive ping (idle eviction ignores it; pings do not count as use). */
  volatile long lastValidatedNanos;

  Pooled(C connection, long now) {
    this.connection = connection;
    this.createdNanos = now;
    this.lastUsedNanos = now;
    this.lastValidatedNanos = now;
  }

  public C connection() {
    return connection;
  }
}
