package io.dyno.loadgen.bench;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** How the control server reads a call's parameters and writes its JSON reply. */
final class HttpExchanges {
  private HttpExchanges() {}

  /** The query's and (for POST) the form body's {@code name=value} pairs, decoded; bad pairs are refused. */
  static Map<String, String> params(HttpExchange ex) throws IOException {
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
        if (eq <= 0) throw new IllegalArgumentException("expected name=value, got \"" + kv + "\"");
        params.put(
            URLDecoder.decode(kv.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return params;
  }

  /** {@link #params}, or null after replying 400 with the reason. */
  static Map<String, String> paramsOrRefuse(HttpExchange ex) throws IOException {
    try {
      return params(ex);
    } catch (IllegalArgumentException e) {
      reply(ex, 400, error(e.getMessage()));
      return null;
    }
  }

  static String error(String message) {
    return "{\"error\":" + JsonOut.write(message) + "}";
  }

  static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  static void reply(HttpExchange ex, int code, String json) throws IOException {
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    send(ex, code, b);
  }

  static void send(HttpExchange ex, int code, byte[] b) throws IOException {
    ex.sendResponseHeaders(code, b.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(b);
    }
  }
}
