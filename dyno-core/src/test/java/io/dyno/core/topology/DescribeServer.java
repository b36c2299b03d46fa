package io.dyno.core.topology;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/** A real HTTP server on 127.0.0.1 serving a settable cluster_describe document; can go down and come back on its port. */
final class DescribeServer implements AutoCloseable {
  private final String path;
  private volatile String body;
  private volatile int status = 200;
  private final AtomicInteger requests = new AtomicInteger();
  private HttpServer server;
  private int port;

  DescribeServer(String path, String body) throws IOException {
    this.path = path;
    this.body = body;
    start(0);
  }

  private void start(int bindPort) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", bindPort), 0);
    server.createContext(path, exchange -> {
      requests.incrementAndGet();
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    });
    server.start();
    port = server.getAddress().getPort();
  }

  String url() {
    return "http://127.0.0.1:" + port + path;
  }

  void respond(int status, String body) {
    this.status = status;
    this.body = body;
  }

  void serve(String body) {
    respond(200, body);
  }

  int requests() {
    return requests.get();
  }

  /** Stops listening: connections are refused until {@link #comeBack()}. */
  void goDown() {
    server.stop(0);
  }

  /** Listens again on the same port. */
  void comeBack() throws IOException {
    start(port);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
