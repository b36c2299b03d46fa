package io.dyno.jedis.internal.mux;

import java.net.SocketTimeoutException;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * Timeouts, checked every {@code timeoutTick} on the event loop and measured on the settings'
 * ticker, so one node's silence holds up only the requests sent to it. A written request whose
 * timeout passes fails (TIMEOUT) but keeps its place, so its late reply is read and dropped; a
 * queued one fails unsent; when the oldest unanswered request (on the channel or on the
 * caller-owned socket) has waited longer than the socket timeout, the node is taken as hung and the
 * connection closes, failing everything.
 */
final class MuxExpiry {
  private final MuxConnection c;

  MuxExpiry(MuxConnection c) {
    this.c = c;
  }

  void tick() {
    if (c.failure != null) {
      return;
    }
    long now = c.ticker.nanoTime();
    MuxRequest<?> oldest = c.replies.oldest();
    if (oldest != null) {
      long waited = now - oldest.writtenNanos;
      if (waited > c.socketTimeoutNanos) {
        hung(waited);
        return;
      }
      for (MuxRequest<?> r : c.replies.unanswered()) {
        if (!r.isDone() && now - r.deadlineNanos >= 0) {
          r.completeExceptionally(timeout(c.node, r, now));
        }
      }
    }
    if (c.direct != null && c.direct.checkOwedReply(now)) {
      return; // the connection closed
    }
    c.writer.expireQueued(now);
  }

  /** The node has not answered the oldest request for longer than the socket timeout: close. */
  void hung(long waitedNanos) {
    long ms = waitedNanos / 1_000_000;
    c.fail(n -> new JedisConnectionException(
        "node " + c.node + " has not answered for " + ms + " ms (socket timeout "
            + c.settings.socketTimeout().toMillis() + " ms): connection closed with " + n
            + " requests in flight",
        new SocketTimeoutException("no reply from " + c.node + " within the socket timeout")));
  }

  /** A written request out of time: TIMEOUT to dyno-jedis' classifier. */
  static JedisConnectionException timeout(String node, MuxRequest<?> r, long now) {
    long ms = (now - r.startNanos) / 1_000_000;
    return new JedisConnectionException(
        "no reply from " + node + " to " + r.describe() + " within its timeout (" + ms + " ms)",
        new SocketTimeoutException("timed out after " + ms + " ms"));
  }
}
