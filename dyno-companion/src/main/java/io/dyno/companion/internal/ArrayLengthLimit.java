package io.dyno.companion.internal;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.redis.ArrayHeaderRedisMessage;
import io.netty.util.ReferenceCountUtil;

/**
 * Closes a connection whose request announces more than {@link #MAX_ELEMENTS} arguments, before
 * Netty's array aggregator sizes a list for them: a 12-byte header such as {@code *300000000}
 * would otherwise make the node allocate a gigabyte on its event loop, then wait for the elements
 * with the connection open (found by RespDecoderFuzzTest in CI: a PING on another connection went
 * unanswered for 5 s). Redis itself refuses more than 1024 x 1024 arguments.
 */
final class ArrayLengthLimit extends ChannelInboundHandlerAdapter {
  static final long MAX_ELEMENTS = 1024 * 1024;

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ArrayHeaderRedisMessage h && h.length() > MAX_ELEMENTS) {
      ReferenceCountUtil.release(msg);
      ctx.close();
      return;
    }
    ctx.fireChannelRead(msg);
  }
}
