package io.dyno.core.pool.internal;

import io.dyno.core.spi.NodeConnection;

/** One pooled connection: the driver's connection plus its bag state and last-use time. */
public final class Pooled<C extends NodeConnection> extends ConcurrentBag.Entry {
  final C connection;
  final long createdNanos;
  volatile long lastUsedNanos;

  Pooled(C connection, long now) {
    this.connection = connection;
    this.createdNanos = now;
    this.lastUsedNanos = now;
  }

  public C connection() {
    return connection;
  }
}
