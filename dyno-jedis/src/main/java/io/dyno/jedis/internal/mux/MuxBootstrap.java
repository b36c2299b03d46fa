package io.dyno.jedis.internal.mux;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The first job of a shared connection: a TCP connect bounded by the connect timeout (and the
 * caller's deadline), then, with TLS, a handshake bounded the same way, its failure said in words.
 * What runs on the channel afterwards (the reply decoder and the connection's events) is the
 * caller's, added before the first byte can arrive.
 */
final class MuxBootstrap {
  private MuxBootstrap() {}

  /**
   * A NIO event-loop group of daemon threads. Also pays, once per JVM, the cost of the channels'
   * allocator's first buffer ({@link AllocatorWarmUp}), so that no request pays it.
   */
  static EventLoopGroup newEventLoopGroup(int threads, String name) {
    AllocatorWarmUp.ensure();
    return new MultiThreadIoEventLoopGroup(
        threads, new DefaultThreadFactory(name, true), NioIoHandler.newFactory());
  }

  /**
   * Netty's default allocator (the one {@code channel.alloc()} returns) loads and registers its
   * flight-recorder event class on its first chunk: about 0.2 s on an idle 2-core machine, 0.6-0.9 s
   * under load, while every other thread allocating waits. Callers encode their commands on their
   * own threads, inside their deadline, so the first ones would pay it (a 500 ms call could spend its
   * time there and fail unsent): it is paid here instead, when a transport is built.
   */
  static final class AllocatorWarmUp {
    private static final boolean WARMED = warm();

    private AllocatorWarmUp() {}

    private static boolean warm() {
      ByteBuf b = ByteBufAllocator.DEFAULT.ioBuffer(64);
      b.release();
      return true;
    }

    /** Whether the allocator has had its first buffer (true once this class is loaded). */
    static boolean ensure() {
      return WARMED;
    }
  }

  /** The connect bound: the connect timeout, or less when the caller has less time left. */
  static int connectMillis(MuxSettings settings, long leftNanos) {
    long leftMillis = Math.max(1, leftNanos / 1_000_000);
    return (int) Math.max(
        1,
        Math.min(
            leftMillis, Math.min(Integer.MAX_VALUE, settings.connectTimeout().toMillis())));
  }

  /**
   * Connects {@code group}'s channel to {@code address}; with TLS, waits for the handshake. Blocks:
   * call it outside the event loop. Throws a {@link JedisConnectionException} naming the node.
   */
  static Channel connect(
      String node,
      InetSocketAddress address,
      EventLoopGroup group,
      MuxSettings settings,
      int connectMillis,
      Supplier<ChannelHandler[]> handlers) {
    // Kept here, not looked up in the pipeline later: a channel the peer closes at once has an
    // empty pipeline.
    SslHandler ssl = settings.tls() != null
        ? sslHandler(settings.tls(), address.getPort(), connectMillis)
        : null;
    Bootstrap b = new Bootstrap()
        .group(group)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectMillis)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.SO_KEEPALIVE, true)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            if (ssl != null) {
              ch.pipeline().addLast(ssl);
            }
            ch.pipeline().addLast(handlers.get());
          }
        });
    ChannelFuture f = b.connect(address);
    // Netty enforces the connect timeout; the extra second only covers a stalled event loop.
    if (!f.awaitUninterruptibly(connectMillis + 1000L)) {
      f.channel().close();
      throw new JedisConnectionException(
          "could not connect to " + node + " (" + address + ") within " + connectMillis + " ms");
    }
    if (!f.isSuccess()) {
      Throwable cause = f.cause();
      throw new JedisConnectionException(
          "could not connect to " + node + " (" + address + "): " + cause, cause);
    }
    if (ssl != null) {
      awaitTlsHandshake(node, address, f.channel(), ssl, settings.tls(), connectMillis);
    }
    return f.channel();
  }

  /**
   * The TLS layer: an engine for the node's host name (SNI), checking the certificate's name unless
   * that is turned off; its handshake bounded like the connect.
   */
  private static SslHandler sslHandler(MuxSettings.Tls tls, int port, int handshakeMillis) {
    SSLEngine engine = tls.context().createSSLEngine(tls.hostname(), port);
    engine.setUseClientMode(true);
    if (tls.verifyHostname()) {
      SSLParameters params = engine.getSSLParameters();
      params.setEndpointIdentificationAlgorithm("HTTPS");
      engine.setSSLParameters(params);
    }
    SslHandler h = new SslHandler(engine);
    h.setHandshakeTimeoutMillis(handshakeMillis);
    return h;
  }

  /** Waits for the TLS handshake; a failure closes the channel and says in words what went wrong. */
  private static void awaitTlsHandshake(
      String node,
      InetSocketAddress address,
      Channel ch,
      SslHandler ssl,
      MuxSettings.Tls tls,
      int handshakeMillis) {
    Future<Channel> done = ssl.handshakeFuture();
    boolean finished = done.awaitUninterruptibly(handshakeMillis + 1000L);
    if (finished && done.isSuccess()) {
      return;
    }
    ch.close();
    String where = node + " (" + address + ")";
    if (!finished) {
      throw new JedisConnectionException(
          "TLS handshake with " + where + " failed: no answer within " + handshakeMillis + " ms");
    }
    String reason = DynomiteWire.tlsReason(done.cause(), tls.hostname());
    throw new JedisConnectionException(
        "TLS handshake with " + where + " failed: "
            + (reason != null ? reason : String.valueOf(done.cause())),
        done.cause());
  }
}
