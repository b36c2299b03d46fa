package io.dyno.core.pool.internal;

import io.dyno.core.engine.internal.NodeConnection;
import java.time.Duration;

/** One pooled connection: the driver's connection plus its bag state and last-use time. */
public final class Pooled<C extends NodeConnection> extends ConcurrentBag.Entry {
  final C connection;
  final long createdNanos;
  /** Set when the connection is returned; maintenance turns it into {@link #lastUsedNanos}. */
  boolean used;

  volatile long lastUsedNanos;
  /** Last successful keep-alive ping (idle eviction ignores it; pings do not count as use). */
  volatile long lastValidatedNanos;

  /** The socket timeout the connection was opened with, in ms. */
  final long socketTimeoutMillis;
  /** The read timeout the connection has now, in ms (only the borrower touches it). */
  long readTimeoutMillis;

  Pooled(C connection, long now, Duration socketTimeout) {
    this.connection = connection;
    this.socketTimeoutMillis = socketTimeout.toMillis();
    this.readTimeoutMillis = socketTimeoutMillis;
    this.createdNanos = now;
    this.lastUsedNanos = now;
    this.lastValidatedNanos = now;
  }

  public C connection() {
    return connection;
  }

  /**
   * Caps the connection's read timeout at {@code capMillis} (at least 1 ms), or — for a cap at or
   * above the socket timeout it was opened with — restores that socket timeout. Calls the driver
   * only when the value changes. The borrower calls this; it owns the connection meanwhile.
   */
  public void capReadTimeout(long capMillis) throws Exception {
    long want = Math.max(1, Math.min(capMillis, socketTimeoutMillis));
    if (want != readTimeoutMillis) {
      connection.setReadTimeout(Duration.ofMillis(want));
      readTimeoutMillis = want;
    }
  }

  /** Puts back the socket timeout the connection was opened with, if a cap changed it. */
  public void restoreReadTimeout() throws Exception {
    capReadTimeout(Long.MAX_VALUE);
  }

  /** The read timeout the connection has now (ms). */
  public long readTimeoutMillis() {
    return readTimeoutMillis;
  }
}
