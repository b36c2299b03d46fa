package io.dyno.companion.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.redis.RedisArrayAggregator;
import io.netty.handler.codec.redis.RedisBulkStringAggregator;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A pipelined RESP connection from one event loop to a peer node or to the node's redis-server.
 * Everything runs on that loop, so the FIFO of callbacks needs no locks; requests from all client
 * connections of the loop share the connection, and writes are flushed once per loop iteration.
 * Connects lazily; while the connection is down every request fails with {@code downError}.
 */
final class RespLink {
  private static final class Pending {
    final Consumer<RedisMessage> callback;
    final byte[][] args;
    long sentNanos;

    Pending(byte[][] args, Consumer<RedisMessage> callback) {
      this.args = args;
      this.callback = callback;
    }
  }

  private final EventLoop loop;
  private final String host;
  private final int port;
  private final String downError;
  private final String timeoutError;
  private final long timeoutNanos;
  private final ArrayDeque<Pending> inflight = new ArrayDeque<>();
  private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
  private final Runnable flushTask = this::flushNow;
  private Channel channel;
  private ChannelFuture connecting;
  private boolean flushScheduled;
  private boolean timeoutScheduled;

  RespLink(
      EventLoop loop,
      String host,
      int port,
      String downError,
      String timeoutError,
      long timeoutNanos) {
    this.loop = loop;
    this.host = host;
    this.port = port;
    this.downError = downError;
    this.timeoutError = timeoutError;
    this.timeoutNanos = timeoutNanos;
  }

  /** Sends a command; the callback runs on this link's loop with the (detached) reply or an error. Loop only. */
  void send(byte[][] args, Consumer<RedisMessage> callback) {
    Pending p = new Pending(args, callback);
    if (channel != null && channel.isActive()) {
      write(p);
      return;
    }
    waiting.add(p);
    if (connecting == null) {
      connect();
    }
  }

  private void connect() {
    Bootstrap b = new Bootstrap()
        .group(loop)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int)
            Math.max(100, Math.min(timeoutNanos / 1_000_000, 2_000)))
        .handler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            ch.pipeline()
                .addLast(
                    new RedisDecoder(false),
                    new RedisBulkStringAggregator(),
                    new RedisArrayAggregator(),
                    new Inbound());
          }
        });
    ChannelFuture f = b.connect(host, port);
    connecting = f;
    f.addListener(done -> {
      if (connecting != f) {
        f.channel().close(); // disconnected while connecting
        return;
      }
      connecting = null;
      if (f.isSuccess()) {
        channel = f.channel();
        while (!waiting.isEmpty() && channel.isActive()) {
          write(waiting.poll());
        }
      } else {
        failAll(waiting, downError);
      }
    });
  }

  private void write(Pending p) {
    ByteBuf buf = channel.alloc().ioBuffer(Resp.commandSize(p.args));
    Resp.encodeCommand(p.args, buf);
    p.sentNanos = System.nanoTime();
    inflight.add(p);
    channel.write(buf, channel.voidPromise());
    if (!flushScheduled) {
      flushScheduled = true;
      loop.execute(flushTask);
    }
    if (!timeoutScheduled) {
      scheduleTimeoutCheck(timeoutNanos);
    }
  }

  private void flushNow() {
    flushScheduled = false;
    if (channel != null) {
      channel.flush();
    }
  }

  private void scheduleTimeoutCheck(long delayNanos) {
    timeoutScheduled = true;
    loop.schedule(this::checkTimeout, Math.max(delayNanos, 1_000_000), TimeUnit.NANOSECONDS);
  }

  private void checkTimeout() {
    timeoutScheduled = false;
    Pending head = inflight.peek();
    if (head == null) {
      return;
    }
    long age = System.nanoTime() - head.sentNanos;
    if (age >= timeoutNanos) {
      Channel c = channel;
      channel = null;
      failAll(inflight, timeoutError);
      if (c != null) {
        c.close();
      }
    } else {
      scheduleTimeoutCheck(timeoutNanos - age);
    }
  }

  /** Drops the connection; requests in flight fail with the down error. Any thread. */
  void disconnect() {
    if (!loop.inEventLoop()) {
      loop.execute(this::disconnect);
      return;
    }
    if (connecting != null) {
      ChannelFuture f = connecting;
      connecting = null;
      f.channel().close();
      failAll(waiting, downError);
    }
    Channel c = channel;
    channel = null;
    failAll(inflight, downError);
    if (c != null) {
      c.close();
    }
  }

  private static void failAll(ArrayDeque<Pending> q, String error) {
    RedisMessage err = Resp.err(error);
    Pending p;
    while ((p = q.poll()) != null) {
      p.callback.accept(err);
    }
  }

  private final class Inbound extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      RedisMessage reply = Resp.detach((RedisMessage) msg);
      if (ctx.channel() != channel) {
        return; // a reply on a connection we already gave up
      }
      Pending p = inflight.poll();
      if (p == null) {
        ctx.close(); // unsolicited reply: the stream is out of step
        return;
      }
      p.callback.accept(reply);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (ctx.channel() == channel) {
        channel = null;
        failAll(inflight, downError);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      ctx.close();
    }
  }

  @Override
  public String toString() {
    return "link to " + host + ":" + port;
  }
}
