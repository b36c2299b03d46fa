package io.dyno.jedis.internal.mux;

import io.dyno.core.time.Ticker;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
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
 * waiting on its own socket is bounded by that socket's read timeout, not by the tick. What a tick
 * checks is each part's own ({@link MuxReplies#expire}, {@link MuxWriter#expireQueued},
 * {@link MuxCallerSockets#checkOwedReplies}), run by the connection's {@link Check}.
 */
final class MuxExpiry {
  /** What a tick does: fails what is out of time at {@code now}; false once the connection is closed. */
  interface Check {
    boolean expire(long now);
  }

  private final EventLoop loop;
  private final long tickNanos;
  private final Ticker ticker;
  private final Check check;
  /** Whether anything is left that a later tick must look at. */
  private final BooleanSupplier pending;

  private final Runnable tickTask = this::tick;
  /** A tick is scheduled (or running and about to decide whether to schedule the next). */
  private final AtomicBoolean scheduled = new AtomicBoolean();

  private volatile ScheduledFuture<?> next;

  MuxExpiry(EventLoop loop, Duration tick, Ticker ticker, Check check, BooleanSupplier pending) {
    this.loop = loop;
    this.tickNanos = tick.toNanos();
    this.ticker = ticker;
    this.check = check;
    this.pending = pending;
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
      next = loop.schedule(tickTask, tickNanos, TimeUnit.NANOSECONDS);
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

  private void tick() {
    if (!check.expire(ticker.nanoTime())) {
      return; // scheduled stays set: nothing ticks on a closed connection
    }
    if (pending.getAsBoolean()) {
      schedule();
      return;
    }
    scheduled.set(false);
    // Whoever made something expirable after pending() looked may have seen the flag still set.
    if (pending.getAsBoolean() && scheduled.compareAndSet(false, true)) {
      schedule();
    }
  }

  /** The node has not answered its oldest request for longer than the socket timeout: the connection closes. */
  static IntFunction<JedisConnectionException> hung(
      String node, Duration socketTimeout, long waitedNanos) {
    long ms = waitedNanos / 1_000_000;
    return n -> new JedisConnectionException(
        "node " + node + " has not answered for " + ms + " ms (socket timeout "
            + socketTimeout.toMillis() + " ms): connection closed with " + n
            + " requests in flight",
        new SocketTimeoutException("no reply from " + node + " within the socket timeout"));
  }

  /** A written request out of time: TIMEOUT to dyno-jedis' classifier. */
  static JedisConnectionException timeout(String node, MuxRequest<?> r, long now) {
    long ms = (now - r.startNanos()) / 1_000_000;
    return new JedisConnectionException(
        "no reply from " + node + " to " + r.describe() + " within its timeout (" + ms + " ms)",
        new SocketTimeoutException("timed out after " + ms + " ms"));
  }
}
