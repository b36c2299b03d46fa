package io.dyno.jedis.internal.mux;

import io.dyno.core.time.Ticker;
import java.util.ArrayDeque;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The shared channel's reply FIFO: written, unanswered requests, oldest first. Redis and Dynomite
 * answer in order, so each decoded reply completes the oldest one. When the last reply of a write
 * arrives, what queued meanwhile leaves in one write once the read is done. Event loop only, except
 * {@link #inFlight()} and {@link #stalledAt}.
 */
final class MuxReplies implements RespDecoder.Sink {
  private final String node;
  private final Ticker ticker;
  private final MuxBooks books;
  private final MuxCloser closer;
  private final ArrayDeque<MuxRequest<?>> fifo = new ArrayDeque<>();
  /** Writes (flushes) not yet wholly answered. */
  private int writesInFlight;
  /** A write's last reply came in the current read: drain when the read is done. */
  private boolean drainAfterRead;

  private volatile int inFlight;
  /** When the channel last made progress: a write to an idle channel, or a read with a write's last reply. */
  private volatile long progressNanos;

  MuxReplies(String node, Ticker ticker, MuxBooks books, MuxCloser closer) {
    this.node = node;
    this.ticker = ticker;
    this.books = books;
    this.closer = closer;
  }

  /** Written: it now owns the next reply after those before it. */
  void written(MuxRequest<?> r) {
    fifo.addLast(r);
  }

  /** The write carrying requests up to {@code last} was flushed. */
  void writeEnded(MuxRequest<?> last) {
    last.endWrite();
    if (writesInFlight++ == 0) {
      progressNanos = last.writtenNanos();
    }
    inFlight = fifo.size();
  }

  int writesInFlight() {
    return writesInFlight;
  }

  /** Written and unanswered (any thread). */
  int inFlight() {
    return inFlight;
  }

  /**
   * Any thread: the channel has requests unanswered and no reply for longer than {@link
   * MuxCallerSockets#STALE_NANOS}; the node may be frozen, so callers queue on the channel (held,
   * unsent) rather than send on a caller socket.
   */
  boolean stalledAt(long now) {
    return inFlight > 0 && now - progressNanos > MuxCallerSockets.STALE_NANOS;
  }

  /** How long the oldest unanswered request has waited for its reply at {@code now} (0: none waits). */
  long oldestWaited(long now) {
    MuxRequest<?> oldest = fifo.peekFirst();
    return oldest == null ? 0 : now - oldest.writtenNanos();
  }

  /**
   * Unanswered requests whose timeout passed fail (TIMEOUT to dyno-jedis' classifier) but keep their
   * place, so that their late replies are read and dropped.
   */
  void expire(long now) {
    for (MuxRequest<?> r : fifo) {
      if (!r.isDone() && r.pastDeadline(now)) {
        r.detach(books); // its caller stops waiting, its late reply is still to come
        r.completeExceptionally(MuxExpiry.timeout(node, r, now));
      }
    }
  }

  int size() {
    return fifo.size();
  }

  /** One complete reply, for the oldest unanswered request. */
  @Override
  public void reply(Object raw) {
    MuxRequest<?> r = fifo.peekFirst();
    if (r == null) {
      if (books.failure() == null) {
        closer.fail(n -> new JedisConnectionException(
            "node " + node + " sent a reply with no request outstanding ("
                + MuxHandshake.describe(raw) + "); connection closed"));
      }
      return;
    }
    if (r.accept(raw)) {
      // Out of the FIFO and the counts before its caller wakes: a caller's next request must not
      // find this connection still busy with its last one (it would open another connection).
      fifo.pollFirst();
      inFlight = fifo.size();
      r.leaveBooks(books);
      r.finish();
      if (r.endsWrite()) {
        writesInFlight--;
        drainAfterRead = true;
      }
    }
  }

  @Override
  public boolean expecting() {
    return !fifo.isEmpty();
  }

  /**
   * After a read's replies: whether a write was wholly answered in it, so that what waited for that
   * leaves now, in one write.
   */
  boolean readDone() {
    if (!drainAfterRead) {
      return false;
    }
    drainAfterRead = false;
    progressNanos = ticker.nanoTime();
    return true;
  }

  /** The connection is closing: everything unanswered fails with {@code e}. */
  void failAll(JedisConnectionException e) {
    for (MuxRequest<?> r; (r = fifo.pollFirst()) != null; ) {
      r.leaveBooks(books);
      r.completeExceptionally(e);
    }
    inFlight = 0;
    writesInFlight = 0;
  }

  static JedisConnectionException malformed(
      String node, RespDecoder.RespProtocolException p, int n) {
    return new JedisConnectionException(
        "malformed reply from " + node + " (" + p.getMessage() + "): connection closed with " + n
            + " requests in flight",
        p);
  }
}
