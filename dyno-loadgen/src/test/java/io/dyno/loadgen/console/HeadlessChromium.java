package io.dyno.loadgen.console;

import io.dyno.loadgen.ReportCheck;
import io.dyno.loadgen.bench.JsonIn;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Headless Chromium driven through the DevTools protocol (a WebSocket, JDK client): opens a page and
 * evaluates JavaScript in it, so a test can type into the page, click its buttons and read what it
 * shows. The same chromium ReportCheck finds (its --dump-dom check cannot interact with a page).
 */
final class HeadlessChromium implements AutoCloseable {
  private static final Pattern LISTENING =
      Pattern.compile("DevTools listening on (ws://127\\.0\\.0\\.1:(\\d+)/\\S+)");

  private final Process process;
  private final Path profile;
  private final WebSocket socket;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<Map<String, Object>>> pending =
      new ConcurrentHashMap<>();

  private HeadlessChromium(Process process, Path profile, WebSocket socket) {
    this.process = process;
    this.profile = profile;
    this.socket = socket;
  }

  static HeadlessChromium open(String url) throws Exception {
    String chromium = ReportCheck.findChromium();
    if (chromium == null)
      throw new IllegalStateException(
          "no chromium on the PATH (scripts/setup-test-env.sh installs it)");
    Path profile = Files.createTempDirectory("chromium-console");
    Process p = new ProcessBuilder(
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--remote-allow-origins=*",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            "--user-data-dir=" + profile,
            url)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start();
    BufferedReader err =
        new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
    CompletableFuture<String> port = new CompletableFuture<>();
    Thread reader = new Thread(
        () -> {
          try {
            String line;
            while ((line = err.readLine()) != null) {
              Matcher m = LISTENING.matcher(line);
              if (m.find()) port.complete(m.group(2));
            }
          } catch (IOException ignored) {
            // chromium ended
          }
          port.completeExceptionally(new IOException("chromium ended without a DevTools port"));
        },
        "chromium-stderr");
    reader.setDaemon(true);
    reader.start();
    String devtools = port.get(30, TimeUnit.SECONDS);
    HttpClient http = HttpClient.newHttpClient();
    String pageWs = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (pageWs == null && System.nanoTime() < deadline) {
      String list = http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + devtools + "/json/list"))
                  .build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
      for (Object o : (List<?>) JsonIn.parse(list)) {
        Map<?, ?> t = (Map<?, ?>) o;
        if ("page".equals(t.get("type"))) pageWs = (String) t.get("webSocketDebuggerUrl");
      }
      if (pageWs == null) Thread.onSpinWait();
    }
    if (pageWs == null) throw new IllegalStateException("chromium opened no page");
    HeadlessChromium[] self = new HeadlessChromium[1];
    StringBuilder partial = new StringBuilder();
    WebSocket ws = http.newWebSocketBuilder()
        .buildAsync(URI.create(pageWs), new WebSocket.Listener() {
          @Override
          public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
              Map<String, Object> msg = JsonIn.parseObject(partial.toString());
              partial.setLength(0);
              if (msg.get("id") instanceof Number n) {
                CompletableFuture<Map<String, Object>> f = self[0].pending.remove(n.intValue());
                if (f != null) f.complete(msg);
              }
            }
            w.request(1);
            return null;
          }
        })
        .get(10, TimeUnit.SECONDS);
    self[0] = new HeadlessChromium(p, profile, ws);
    return self[0];
  }

  /** Evaluates an expression in the page and returns its value (JSON-like: String, Number, Boolean, Map, List, null). */
  Object eval(String expression) throws Exception {
    int id = ids.incrementAndGet();
    CompletableFuture<Map<String, Object>> f = new CompletableFuture<>();
    pending.put(id, f);
    String msg = "{\"id\":" + id + ",\"method\":\"Runtime.evaluate\",\"params\":{\"expression\":"
        + quote(expression) + ",\"returnByValue\":true}}";
    socket.sendText(msg, true).get(5, TimeUnit.SECONDS);
    Map<String, Object> reply = f.get(10, TimeUnit.SECONDS);
    Map<?, ?> result = (Map<?, ?>) reply.get("result");
    if (result == null || result.get("exceptionDetails") != null) {
      throw new IllegalStateException("page script failed: " + expression + " -> " + reply);
    }
    return ((Map<?, ?>) result.get("result")).get("value");
  }

  private static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        default -> sb.append(c);
      }
    }
    return sb.append('"').toString();
  }

  @Override
  public void close() {
    try {
      socket.abort();
    } catch (RuntimeException ignored) {
      // closing anyway
    }
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (var files = Files.walk(profile)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException ignored) {
      // a temp profile left behind is harmless
    }
  }

  static Duration since(long t0) {
    return Duration.ofNanos(System.nanoTime() - t0);
  }
}
