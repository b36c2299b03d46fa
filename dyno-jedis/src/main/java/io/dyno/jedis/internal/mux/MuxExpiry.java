package io.dyno.jedis.internal.mux;

import io.netty.util.concurrent.ScheduledFuture;
import java.net.SocketTimeoutException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * Timeouts, checked every {@code timeoutTick} on the event loop and measured on the settings'
 * ticker, so one node's silence holds up only the requests sent to it. A written request whose
 * timeout passes fails (TIMEOUT) but keeps its place, so its late reply is read and dropped; a
 * queued one fails unsent; when the oldest unanswered request (on the channel or on a caller
 * socket) has waited longer than the socket timeout, the node is taken as hung and the connection
 * closes, failing everything.
 *
 * <p>The tick runs only while something can expire (requests queued or written on the channel, a
 * caller socket owed a late reply): an idle connection costs its event loop no wake-ups, which
 * matters when a client holds connections to a hundred nodes that each see few requests. A caller
 * waiting on its own socket is bounded by that socket's read timeout, not by the tick.
 */
final class MuxExpiry {
  private final MuxConnection c;
  private final Runnable tickTask = this::tick;
  /** A tick is scheduled (or running and about to decide whether to schedule the next). */
  private final AtomicBoolean scheduled = new AtomicBoolean();

  private volatile ScheduledFuture<?> next;

  MuxExpiry(MuxConnection c) {
    this.c = c;
  }

  /**
   * Any thread, after making something expirable visible (queued a request, owes a reply): a tick
   * comes within {@code timeoutTick}.
   */
  void watch() {
    if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
      schedule();
    }
  }

  private void schedule() {
    try {
      next = c.loop.schedule(tickTask, c.settings.timeoutTick().toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException loopGone) {
      scheduled.set(false); // the loop is shut down: closing fails what is left
    }
  }

  /** Whether a tick is coming (for tests: an idle connection has none). */
  boolean ticking() {
    return scheduled.get();
  }

  /** Cancels the next tick (the connection closed). */
  void stop() {
    ScheduledFuture<?> t = next;
    if (t != null) {
      t.cancel(false);
    }
  }

  void tick() {
    if (c.failure != null) {
      return; // scheduled stays set: nothing ticks on a closed connection
    }
    check(c.ticker.nanoTime());
    if (c.failure != null) {
      return;
    }
    if (pending()) {
      schedule();
      return;
    }
    scheduled.set(false);
    // Whoever made something expirable after pending() looked may have seen the flag still set.
    if (pending() && scheduled.compareAndSet(false, true)) {
      schedule();
    }
  }

  /** Event loop: anything that a later tick must look at. */
  private boolean pending() {
    return c.replies.size() > 0
        || c.writer.queued() > 0
        || (c.callers != null && c.callers.owed() > 0);
  }

  private void check(long now) {
    MuxRequest<?> oldest = c.replies.oldest();
    if (oldest != null) {
      long waited = now - oldest.writtenNanos;
      if (waited > c.socketTimeoutNanos) {
        hung(waited);
        return;
      }
      for (MuxRequest<?> r : c.replies.unanswered()) {
        if (!r.isDone() && now - r.deadlineNanos >= 0) {
          r.detach(c); // its caller stops waiting, its late reply is still to come
          r.completeExceptionally(timeout(c.node, r, now));
        }
      }
    }
    if (c.callers != null && c.callers.checkOwedReplies(now)) {
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
