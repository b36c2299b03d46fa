package io.dyno.companion.internal;

import io.netty.handler.codec.redis.RedisMessage;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/** Proxies every command to the node's redis-server over one pipelined connection per event loop. */
final class RedisStorage implements Storage {
  private final NodeServer node;
  private final int port;

  RedisStorage(NodeServer node, int port) {
    this.node = node;
    this.port = port;
  }

  @Override
  public void execute(byte[][] args, LoopState loop, Consumer<RedisMessage> callback) {
    loop.backend().send(args, callback);
  }

  @Override
  public void disconnect() {
    node.forEachLoop(LoopState::disconnectBackend);
  }

  @Override
  public void flushAll() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
      s.setSoTimeout(5000);
      s.getOutputStream().write("FLUSHALL\r\n".getBytes(StandardCharsets.US_ASCII));
      InputStream in = s.getInputStream();
      byte[] ok = in.readNBytes(5);
      if (!new String(ok, StandardCharsets.US_ASCII).equals("+OK\r\n")) {
        throw new IllegalStateException("FLUSHALL on redis-server 127.0.0.1:" + port + " answered "
            + new String(ok, StandardCharsets.US_ASCII).trim());
      }
    } catch (IOException e) {
      throw new IllegalStateException(
          "FLUSHALL on redis-server 127.0.0.1:" + port + " failed: " + e.getMessage(), e);
    }
  }
}
