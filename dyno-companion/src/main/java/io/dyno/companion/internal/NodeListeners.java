package io.dyno.companion.internal;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.redis.RedisArrayAggregator;
import io.netty.handler.codec.redis.RedisBulkStringAggregator;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;

/**
 * One node's sockets: the client and peer (RESP) listeners with their accepted connections, and
 * the admin (HTTP) listener. Port 0 binds a free port, which is then kept for restarts.
 */
final class NodeListeners {
  private static final int FREE_PAIR_ATTEMPTS = 50;

  private final NodeServer node;
  private final NodeConfig config;
  private final EventLoopGroup group;
  private final ChannelGroup clientChannels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private final ChannelGroup peerChannels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
  private Channel clientServer;
  private Channel peerServer;
  private Channel adminServer;
  private int clientPort;
  private int peerPort;
  private int adminPort;

  NodeListeners(NodeServer node, EventLoopGroup group) {
    this.node = node;
    this.config = node.config();
    this.group = group;
    this.clientPort = config.clientPort();
    this.peerPort = config.peerPort();
    this.adminPort = config.adminPort();
  }

  int clientPort() {
    return clientPort;
  }

  int peerPort() {
    return peerPort;
  }

  int adminPort() {
    return adminPort;
  }

  void bindAdmin() {
    adminServer = bind(
        adminPort,
        new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            // No response encoder: AdminHandler writes Dynomite's reply bytes itself.
            ch.pipeline()
                .addLast(
                    new HttpRequestDecoder(),
                    new HttpObjectAggregator(1 << 16),
                    new AdminHandler(node));
          }
        },
        "admin");
    adminPort = ((InetSocketAddress) adminServer.localAddress()).getPort();
  }

  void bindResp() {
    if (clientPort == 0 && peerPort == 0) {
      bindFreePortPair();
    } else {
      clientServer = bind(clientPort, respInitializer(false), "client");
      clientPort = ((InetSocketAddress) clientServer.localAddress()).getPort();
      peerServer = bind(peerPort, respInitializer(true), "peer");
      peerPort = ((InetSocketAddress) peerServer.localAddress()).getPort();
    }
  }

  /**
   * Free ports that keep Dynomite's convention, peer port = client port - 1: Dynomite's
   * {@code /cluster_describe} gives only the peer port, and clients take the client port as peer
   * port + 1, so a free-port cluster is then usable through it like a real one.
   */
  private void bindFreePortPair() {
    for (int attempt = 1; ; attempt++) {
      Channel client = bind(0, respInitializer(false), "client");
      int port = ((InetSocketAddress) client.localAddress()).getPort();
      try {
        peerServer = bind(port - 1, respInitializer(true), "peer");
      } catch (IllegalStateException taken) {
        client.close().syncUninterruptibly();
        if (attempt == FREE_PAIR_ATTEMPTS) {
          throw new IllegalStateException(
              "node " + config.datacenter() + "/" + config.rack()
                  + " token " + config.token() + ": no free client port whose port - 1 is free for"
                  + " the peer port in " + FREE_PAIR_ATTEMPTS + " tries",
              taken);
        }
        continue;
      }
      clientServer = client;
      clientPort = port;
      peerPort = port - 1;
      return;
    }
  }

  private ChannelInitializer<SocketChannel> respInitializer(boolean peer) {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(SocketChannel ch) {
        (peer ? peerChannels : clientChannels).add(ch);
        ch.pipeline()
            .addLast(
                new RedisDecoder(!peer),
                new RedisBulkStringAggregator(),
                new ArrayLengthLimit(),
                new RedisArrayAggregator(),
                new Connection(node, peer));
      }
    };
  }

  private Channel bind(int port, ChannelInitializer<SocketChannel> init, String what) {
    try {
      return new ServerBootstrap()
          .group(group)
          .channel(NioServerSocketChannel.class)
          .option(ChannelOption.SO_REUSEADDR, true)
          .option(ChannelOption.SO_BACKLOG, 1024)
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childHandler(init)
          .bind(config.host(), port)
          .sync()
          .channel();
    } catch (Exception e) {
      throw new IllegalStateException(
          "node " + config.datacenter() + "/" + config.rack() + " token " + config.token()
              + ": cannot bind " + what + " port " + config.host() + ":" + port + ": "
              + e.getMessage(),
          e);
    }
  }

  /** Closes the client and peer listeners and every connection they accepted. */
  void closeResp() {
    clientServer.close().syncUninterruptibly();
    peerServer.close().syncUninterruptibly();
    clientChannels.close().awaitUninterruptibly();
    peerChannels.close().awaitUninterruptibly();
  }

  /** Closes the connections other nodes opened to this one; the peer listener stays. */
  void closePeerConnections() {
    peerChannels.close().awaitUninterruptibly();
  }

  void closeAdmin() {
    if (adminServer != null) {
      adminServer.close().syncUninterruptibly();
    }
  }
}
