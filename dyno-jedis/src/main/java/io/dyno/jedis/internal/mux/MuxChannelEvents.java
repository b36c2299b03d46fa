package io.dyno.jedis.internal.mux;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The shared channel's events, after the reply decoder: the end of a read that answered a write
 * lets the writer send what queued meanwhile; a peer close, an I/O error or a malformed reply
 * closes the connection, naming the node and how many requests it held.
 */
final class MuxChannelEvents extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(MuxChannelEvents.class);

  private final String node;
  private final MuxReplies replies;
  private final MuxWriter writer;
  private final MuxBooks books;
  private final MuxCloser closer;

  MuxChannelEvents(
      String node, MuxReplies replies, MuxWriter writer, MuxBooks books, MuxCloser closer) {
    this.node = node;
    this.replies = replies;
    this.writer = writer;
    this.books = books;
    this.closer = closer;
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (replies.readDone()) {
      // Also when nothing is queued: it clears the writer's scheduled mark, which a held drain left
      // set.
      writer.drain();
    }
    ctx.fireChannelReadComplete();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closer.fail(n -> new JedisConnectionException(
        "connection to " + node + " was closed by the peer with " + n + " requests in flight"));
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof DecoderException
        && cause.getCause() instanceof RespDecoder.RespProtocolException p) {
      closer.fail(n -> MuxReplies.malformed(node, p, n));
    } else {
      closer.fail(n -> new JedisConnectionException(
          "connection to " + node + " failed (" + cause + ") with " + n + " requests in flight",
          cause));
    }
    JedisConnectionException failure = books.failure();
    if (failure != null) {
      log.debug("{}", failure.getMessage());
    }
  }
}
