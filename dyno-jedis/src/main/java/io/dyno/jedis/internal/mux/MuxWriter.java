package io.dyno.jedis.internal.mux;

import io.dyno.core.time.Ticker;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.net.SocketTimeoutException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The shared channel's write path: callers put encoded requests on a lock-free queue (within the
 * in-flight limit); the first submit after a drain schedules one drain on the event loop, which
 * writes everything queued by then and flushes once.
 *
 * <p><b>Coalescing</b> (Nagle's rule, the server's reply as the acknowledgement): at most
 * {@code maxWritesInFlight} writes on the channel await their replies; a drain that finds that many
 * holds back, and what was submitted meanwhile leaves in one write as soon as one of them is
 * answered. 0 lifts the bound. The caller sockets are connections of their own and count only
 * while their request is stale (see {@link MuxCallerSockets#STALE_NANOS}): the node may be frozen,
 * and what queues behind stays unsent.
 */
final class MuxWriter {
  private final String node;
  private final Ticker ticker;
  private final MuxListener listener;
  private final long socketTimeoutNanos;
  private final long inFlightWaitNanos;
  private final int maxWritesInFlight;
  private final EventLoop loop;
  private final MuxBooks books;
  private final MuxReplies replies;
  private final MuxExpiry expiry;
  /** The caller sockets, whose stale requests hold writes back too; null when there are none. */
  private final MuxCallerSockets callers;

  private final Queue<MuxRequest<?>> submitted = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final Runnable drainTask = this::drain;
  // Written by the event loop only (single writer), read anywhere.
  private volatile long flushes;
  private volatile long commandsWritten;
  private volatile Channel channel;

  MuxWriter(
      String node,
      MuxSettings settings,
      EventLoop loop,
      MuxBooks books,
      MuxReplies replies,
      MuxExpiry expiry,
      MuxCallerSockets callers) {
    this.node = node;
    this.ticker = settings.ticker();
    this.listener = settings.listener();
    this.socketTimeoutNanos = settings.socketTimeout().toNanos();
    this.inFlightWaitNanos = settings.inFlightWaitNanos();
    this.maxWritesInFlight = settings.maxWritesInFlight();
    this.loop = loop;
    this.books = books;
    this.replies = replies;
    this.expiry = expiry;
    this.callers = callers;
  }

  /** The channel connected: writes go there from now on (before the first request is queued). */
  void attach(Channel ch) {
    channel = ch;
  }

  /** Queues {@code r} for the next write, or fails it unsent (closed, or no room under the in-flight limit in time). */
  void enqueue(MuxRequest<?> r, ByteBuf bytes, long start, long timeoutNanos) {
    r.timed(start, timeoutNanos);
    JedisConnectionException refused = books.closing()
        ? books.closedError()
        : books.tryTakePermit() ? null : awaitPermit(r, start);
    if (refused != null) {
      bytes.release();
      r.completeExceptionally(refused);
      return;
    }
    r.hold(bytes);
    if (r.detached()) {
      books.detachedEntered(); // before it is queued: a caller socket must see it there
    }
    queued.incrementAndGet();
    submitted.offer(r);
    expiry.watch();
    if (books.closing()) {
      // close() may have swept the queue before this offer: sweep again so nothing stays behind.
      failSubmitted(books.closedError());
      return;
    }
    if (drainScheduled.compareAndSet(false, true)) {
      try {
        loop.execute(drainTask);
      } catch (RejectedExecutionException e) {
        books.markClosing();
        failSubmitted(new JedisConnectionException(
            "the event loop of the connection to " + node + " is shut down", e));
      }
    }
  }

  /**
   * Sends one handshake command alone on the channel (nothing else can be queued yet) and waits for
   * its reply, within the socket timeout and {@code deadlineNanos}.
   */
  Object handshakeStep(CommandArguments cmd, String what, long deadlineNanos) {
    MuxRequest.Single r = new MuxRequest.Single(cmd.getCommand(), false, false);
    long now = ticker.nanoTime();
    long timeout = Math.max(0, Math.min(socketTimeoutNanos, deadlineNanos - now));
    enqueue(r, RespEncoder.encode(channel.alloc(), cmd), now, timeout);
    try {
      // The tick fails the request at its timeout; the extra second only covers a stalled event
      // loop.
      return r.get(timeout + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw new JedisConnectionException(
          what + " on the new connection to " + node + " failed: " + cause.getMessage(), cause);
    } catch (TimeoutException e) {
      throw new JedisConnectionException(
          what + " on the new connection to " + node + " got no answer",
          new SocketTimeoutException("no reply within " + timeout / 1_000_000 + " ms"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new JedisConnectionException("interrupted during " + what + " on " + node, e);
    }
  }

  /**
   * Waits for room under the in-flight limit until the request's deadline: null when it got a slot,
   * else why not ({@link InFlightLimitException}, interrupted, closed meanwhile).
   */
  private JedisConnectionException awaitPermit(MuxRequest<?> r, long start) {
    int limit = books.maxInFlight();
    if (loop.inEventLoop()) {
      // Waiting here would stop the very loop that frees the slots.
      return new InFlightLimitException(node, books.permitsTaken(), limit, 0);
    }
    boolean acquired;
    try {
      // The wait ends at the request's deadline or after inFlightWait, the sooner.
      long now = ticker.nanoTime();
      long left = Math.min(r.deadlineNanos() - now, inFlightWaitNanos - (now - start));
      acquired = books.takePermit(Math.max(0, left));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new JedisConnectionException("interrupted while waiting to send to " + node, e);
    }
    long waited = ticker.nanoTime() - start;
    listener.inFlightLimitWaited(node, waited, acquired);
    if (!acquired) {
      return new InFlightLimitException(node, books.permitsTaken(), limit, waited);
    }
    if (books.closing()) {
      books.givePermit();
      return books.closedError();
    }
    return null;
  }

  /** Event loop: writes everything queued, then flushes once, unless the writes awaiting replies are at their bound. */
  void drain() {
    if (books.closing()) {
      drainScheduled.set(false);
      failSubmitted(books.closedError());
      return;
    }
    long now = ticker.nanoTime();
    if (maxWritesInFlight > 0
        && replies.writesInFlight() + (callers == null ? 0 : callers.stale(now))
            >= maxWritesInFlight) {
      // drainScheduled stays set: the answer to a write in flight drains (readDone, or the stale
      // caller socket's answer)
      return;
    }
    drainScheduled.set(false); // before polling: a submit after this point schedules the next drain
    Channel ch = channel;
    int commands = 0;
    MuxRequest<?> r;
    MuxRequest<?> last = null;
    while ((r = submitted.poll()) != null) {
      queued.decrementAndGet();
      if (r.isDone() || r.pastDeadline(now)) {
        dropUnwritten(r, now); // never sent, so it takes no FIFO slot
        continue;
      }
      ByteBuf b = r.written(now);
      replies.written(r);
      last = r;
      ch.write(
          b, ch.voidPromise()); // a write failure reaches exceptionCaught, which fails everything
      listener.written(node, r.commands(), now - r.startNanos());
      commands += r.commands();
    }
    if (commands > 0) {
      replies.writeEnded(last);
      ch.flush();
      listener.flushed(node, commands);
      flushes = flushes + 1;
      commandsWritten = commandsWritten + commands;
    }
  }

  /**
   * Any thread, after a stale caller socket's request was answered: a drain held back by it runs
   * now. Nothing to do when none was held back.
   */
  void resumeHeldDrain() {
    if (!drainScheduled.get()) {
      return;
    }
    if (loop.inEventLoop()) {
      drain();
      return;
    }
    try {
      loop.execute(drainTask);
    } catch (RejectedExecutionException closed) {
      failSubmitted(books.closedError());
    }
  }

  /** Event loop: queued requests out of time fail unsent (they wait behind unanswered writes). */
  void expireQueued(long now) {
    if (queued.get() == 0) {
      return;
    }
    for (MuxRequest<?> r : submitted) {
      if ((r.isDone() || r.pastDeadline(now)) && submitted.remove(r)) {
        queued.decrementAndGet();
        dropUnwritten(r, now);
      }
    }
  }

  /** A request taken off the queue that will not be written (cancelled, or out of time): it fails unsent. */
  private void dropUnwritten(MuxRequest<?> r, long now) {
    r.releaseBytes();
    r.leaveBooks(books);
    if (!r.isDone()) {
      long ms = (now - r.startNanos()) / 1_000_000;
      // Replies come in order: the oldest unanswered request's wait is how long the node has
      // answered nothing on this connection.
      long silent = replies.oldestWaited(now);
      r.completeExceptionally(NotSentException.behindUnanswered(
          r.describe() + " was not sent to " + node + ": its timeout passed (" + ms
              + " ms) while it waited to be written",
          new SocketTimeoutException("timed out after " + ms + " ms"),
          Math.max(0, silent)));
    }
  }

  /** Fails what is queued but unwritten (any thread: the queue allows concurrent polls); none of it was sent. */
  void failSubmitted(JedisConnectionException e) {
    for (MuxRequest<?> r; (r = submitted.poll()) != null; ) {
      queued.decrementAndGet();
      r.releaseBytes();
      r.leaveBooks(books);
      r.completeExceptionally(new NotSentException(
          e.getMessage() + " (" + r.describe() + " was queued, not sent)", e, true));
    }
  }

  int queued() {
    return queued.get();
  }

  long flushes() {
    return flushes;
  }

  long commandsWritten() {
    return commandsWritten;
  }
}
