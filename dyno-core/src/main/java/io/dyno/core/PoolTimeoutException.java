package io.dyno.core;

/**
 * No connection to a node became free within the borrow timeout. The message names the node, the
 * callers waiting at that moment and the time waited; the command was never sent.
 */
public class PoolTimeoutException extends DynoException {
  private final transient Host host;
  private final int waiters;
  private final long waitedNanos;

  public PoolTimeoutException(Host host, int waiters, long waitedNanos, int size, int active, int max) {
    super("timed out waiting for a connection to " + host + " after " + (waitedNanos / 1_000_000) + " ms ("
        + waiters + " callers waiting, pool size " + size + ", in use " + active + ", max " + max
        + "); raise maxConnsPerHost or maxTimeoutWhenExhausted, or look at this node's latency");
    this.host = host;
    this.waiters = waiters;
    this.waitedNanos = waitedNanos;
  }

  public Host host() { return host; }

  /** Callers waiting for this node's pool when the timeout hit (this one included). */
  public int waiters() { return waiters; }

  public long waitedNanos() { return waitedNanos; }
}
