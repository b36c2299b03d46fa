package io.dyno.demo.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A small HTTP endpoint on 127.0.0.1 to read and change a running bench's runtime settings:
 * {@code GET /settings} lists them; {@code GET|POST /set?readRate=5000&writeRate=0} changes them
 * (400 with the reason when a value or name is refused). Port 0 picks a free port.
 */
public final class ControlServer implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor;
  private final Knobs knobs;
  private volatile boolean closed;

  public ControlServer(Knobs knobs, int port) throws IOException {
    this.knobs = knobs;
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
    this.executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "bench-control-http");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(executor);
    server.createContext("/settings", ex -> reply(ex, 200, JsonOut.write(knobs.asMap())));
    server.createContext("/set", this::set);
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public String url() {
    return "http://127.0.0.1:" + port();
  }

  private void set(HttpExchange ex) throws IOException {
    String query = ex.getRequestURI().getRawQuery();
    if ("POST".equals(ex.getRequestMethod())) {
      String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!body.isEmpty()) query = query == null ? body : query + "&" + body;
    }
    Map<String, String> params = new LinkedHashMap<>();
    if (query != null) {
      for (String kv : query.split("&")) {
        if (kv.isEmpty()) continue;
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          reply(ex, 400, "{\"error\":" + JsonOut.write("expected name=value, got \"" + kv + "\"") + "}");
          return;
        }
        params.put(URLDecoder.decode(kv.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    try {
      params.forEach(knobs::set);
    } catch (IllegalArgumentException e) {
      reply(ex, 400, "{\"error\":" + JsonOut.write(e.getMessage()) + "}");
      return;
    }
    reply(ex, 200, JsonOut.write(knobs.asMap()));
  }

  private static void reply(HttpExchange ex, int code, String json) throws IOException {
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(code, b.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(b);
    }
  }

  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    server.stop(0);
    executor.shutdownNow();
  }
}
