package io.dyno.jedis.internal.mux;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The shared channel's reply FIFO: written, unanswered requests, oldest first. Redis and Dynomite
 * answer in order, so each decoded reply completes the oldest one. When the last reply of a write
 * arrives, what queued meanwhile leaves in one write once the read is done. Event loop only, except
 * the {@link #inFlight()} count.
 */
final class MuxReplies implements RespDecoder.Sink {
  private static final Logger log = LoggerFactory.getLogger(MuxReplies.class);

  private final MuxConnection c;
  private final ArrayDeque<MuxRequest<?>> fifo = new ArrayDeque<>();
  /** Writes (flushes) not yet wholly answered. */
  private int writesInFlight;
  /** A write's last reply came in the current read: drain when the read is done. */
  private boolean drainAfterRead;

  private volatile int inFlight;
  /** When the channel last made progress: a write to an idle channel, or a read with a write's last reply. */
  private volatile long progressNanos;

  MuxReplies(MuxConnection c) {
    this.c = c;
  }

  /** Written: it now owns the next reply after those before it. */
  void written(MuxRequest<?> r) {
    fifo.addLast(r);
  }

  /** The write carrying requests up to {@code last} was flushed. */
  void writeEnded(MuxRequest<?> last) {
    last.endsWrite = true;
    if (writesInFlight++ == 0) {
      progressNanos = last.writtenNanos;
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

  MuxRequest<?> oldest() {
    return fifo.peekFirst();
  }

  Iterable<MuxRequest<?>> unanswered() {
    return fifo;
  }

  int size() {
    return fifo.size();
  }

  /** One complete reply, for the oldest unanswered request. */
  @Override
  public void reply(Object raw) {
    MuxRequest<?> r = fifo.peekFirst();
    if (r == null) {
      if (c.failure == null) {
        c.fail(n -> new JedisConnectionException(
            "node " + c.node + " sent a reply with no request outstanding ("
                + MuxHandshake.describe(raw) + "); connection closed"));
      }
      return;
    }
    if (r.accept(raw)) {
      // Out of the FIFO and the counts before its caller wakes: a caller's next request must not
      // find this connection still busy with its last one (it would open another connection).
      fifo.pollFirst();
      inFlight = fifo.size();
      r.leaveBooks(c);
      r.finish();
      if (r.endsWrite) {
        writesInFlight--;
        drainAfterRead = true;
      }
    }
  }

  @Override
  public boolean expecting() {
    return !fifo.isEmpty();
  }

  /** After a read's replies: what waited for a write to be answered leaves now, in one write. */
  private void readDone() {
    if (drainAfterRead) {
      drainAfterRead = false;
      progressNanos = c.ticker.nanoTime();
      c.writer
          .drain(); // also when nothing is queued: it clears drainScheduled, which a gated drain
      // left set
    }
  }

  /** The connection is closing: everything unanswered fails with {@code e}. */
  void failAll(JedisConnectionException e) {
    for (MuxRequest<?> r; (r = fifo.pollFirst()) != null; ) {
      r.leaveBooks(c);
      r.completeExceptionally(e);
    }
    inFlight = 0;
    writesInFlight = 0;
  }

  /** The channel's events, after the reply decoder. */
  ChannelInboundHandlerAdapter events() {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void channelReadComplete(ChannelHandlerContext ctx) {
        readDone();
        ctx.fireChannelReadComplete();
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        c.fail(n -> new JedisConnectionException("connection to " + c.node
            + " was closed by the peer with " + n + " requests in flight"));
        ctx.fireChannelInactive();
      }

      @Override
      public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof DecoderException
            && cause.getCause() instanceof RespDecoder.RespProtocolException p) {
          c.fail(n -> malformed(c.node, p, n));
        } else {
          c.fail(n -> new JedisConnectionException(
              "connection to " + c.node + " failed (" + cause + ") with " + n
                  + " requests in flight",
              cause));
        }
        if (c.failure != null) {
          log.debug("{}", c.failure.getMessage());
        }
      }
    };
  }

  static JedisConnectionException malformed(
      String node, RespDecoder.RespProtocolException p, int n) {
    return new JedisConnectionException(
        "malformed reply from " + node + " (" + p.getMessage() + "): connection closed with " + n
            + " requests in flight",
        p);
  }
}
