package io.dyno.core;

/**
 * No connection to a node became free within the borrow timeout. The message names the node, the
 * callers waiting at that moment and the time waited; the command was never sent.
 */
public class PoolTimeoutException extends DynoException {
  private final transient Host host;
  /** Callers waiting for the node's pool when the timeout hit (this one included). */
  private final int waiters;
  /** How long this caller waited, in nanoseconds. */
  private final long waitedNanos;

  /**
   * Creates the exception; its message says all of the below and how to fix it.
   *
   * @param host the node whose pool had no free connection
   * @param waiters callers waiting for that pool at that moment (this one included)
   * @param waitedNanos how long this caller waited, in nanoseconds
   * @param size the pool's connections at that moment
   * @param active its connections in use
   * @param max its most connections ({@code maxConnsPerHost})
   */
  public PoolTimeoutException(
      Host host, int waiters, long waitedNanos, int size, int active, int max) {
    super("timed out waiting for a connection to " + host + " after " + (waitedNanos / 1_000_000)
        + " ms ("
        + waiters + " callers waiting, pool size " + size + ", in use " + active + ", max " + max
        + "); raise maxConnsPerHost or maxTimeoutWhenExhausted, or look at this node's latency");
    this.host = host;
    this.waiters = waiters;
    this.waitedNanos = waitedNanos;
  }

  /** {@return the node whose pool had no free connection} Not serialized: null after deserialization. */
  public Host host() {
    return host;
  }

  /** {@return the callers waiting for this node's pool when the timeout hit (this one included)} */
  public int waiters() {
    return waiters;
  }

  /** {@return how long this caller waited, in nanoseconds} */
  public long waitedNanos() {
    return waitedNanos;
  }
}
