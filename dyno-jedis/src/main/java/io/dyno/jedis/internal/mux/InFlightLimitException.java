package io.dyno.jedis.internal.mux;

/**
 * The connection to a node had its in-flight limit reached for the whole of the caller's timeout:
 * the command was never sent (so it is safe to try elsewhere, even when not idempotent).
 */
public final class InFlightLimitException extends NotSentException {
  private final String node;
  private final int inFlight;
  private final int limit;
  private final long waitedNanos;

  InFlightLimitException(String node, int inFlight, int limit, long waitedNanos) {
    super(
        "timed out after " + waitedNanos / 1_000_000 + " ms waiting to send to " + node + ": "
            + inFlight
            + " requests in flight on its connection, the limit (maxInFlight) is " + limit
            + "; the command was not sent. Raise maxInFlight or connections per node, or look at this node's latency");
    this.node = node;
    this.inFlight = inFlight;
    this.limit = limit;
    this.waitedNanos = waitedNanos;
  }

  public String node() {
    return node;
  }

  public int inFlight() {
    return inFlight;
  }

  public int limit() {
    return limit;
  }

  public long waitedNanos() {
    return waitedNanos;
  }
}
