package io.dyno.loadgen.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The load generator's console and REST API on 127.0.0.1 (port 0 picks a free one). Everything the
 * page does is one of these calls:
 * <ul>
 *   <li>{@code GET /} the console page (live charts and knobs; self-contained, nothing fetched elsewhere);
 *   <li>{@code GET /settings} the runtime settings; {@code GET|POST /set?readRate=5000&...} changes them
 *       (400 with the reason when refused); {@code &instance=all|local|<name>} picks where (default: here
 *       and every registered instance);
 *   <li>{@code GET /status?since=T} state, settings, samples after T seconds, events, totals, registered
 *       instances and their sum, and extra sections (the replication delay);
 *   <li>{@code POST /start}, {@code /pause}, {@code /stop} (ends the run; the report is written),
 *       {@code /backfill}, {@code /report} (writes the report now), each with {@code ?instance=} too;
 *   <li>{@code POST /register?name=N&url=U} an instance on another machine joins this coordinator;
 *   <li>{@code POST /heap} runs a full GC and returns the heap in use (for long-run memory checks).
 * </ul>
 * Without a bench (a pure coordinator) the page shows the registered instances only.
 */
public final class ControlServer implements AutoCloseable {
  private static final Duration INSTANCE_STALE = Duration.ofSeconds(10);

  private final HttpServer server;
  private final ExecutorService executor;
  private final Knobs knobs;
  private final Bench bench;
  private final String name;
  private final Callable<List<Path>> reportWriter;
  private final Map<String, Supplier<Object>> sections = new ConcurrentHashMap<>();
  private final Map<String, Instance> instances = new ConcurrentHashMap<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final ScheduledExecutorService poller;
  private volatile ScheduledExecutorService registrar;
  private volatile URI registerUri;
  private volatile boolean closed;

  /** A registered instance and the latest status it gave. */
  static final class Instance {
    final String name;
    final String url;
    volatile long lastSeenNanos = System.nanoTime();
    volatile Map<String, Object> status = Map.of();
    volatile String error;
    // The instance ended and pushed its final status: kept as is, no longer polled or dropped.
    volatile boolean finished;

    Instance(String name, String url) {
      this.name = name;
      this.url = url;
    }
  }

  /** Settings only ({@code /settings}, {@code /set}), for a bench driven by other means. */
  public ControlServer(Knobs knobs, int port) throws IOException {
    this(null, knobs, "local", port, null);
  }

  /** The console of one bench: {@code reportWriter} writes the report and returns its files. */
  public ControlServer(Bench bench, String name, int port, Callable<List<Path>> reportWriter)
      throws IOException {
    this(bench, bench.knobs(), name, port, reportWriter);
  }

  /** A coordinator without load of its own: it shows and drives the instances that register with it. */
  public static ControlServer coordinator(int port) throws IOException {
    return new ControlServer(null, null, "coordinator", port, null);
  }

  private ControlServer(
      Bench bench, Knobs knobs, String name, int port, Callable<List<Path>> reportWriter)
      throws IOException {
    this.bench = bench;
    this.knobs = knobs;
    this.name = name;
    this.reportWriter = reportWriter;
    this.server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
    this.executor = Executors.newFixedThreadPool(4, daemon("bench-control-http"));
    this.poller = Executors.newSingleThreadScheduledExecutor(daemon("bench-control-poll"));
    server.setExecutor(executor);
    server.createContext("/", this::page);
    server.createContext(
        "/settings", ex -> reply(ex, 200, JsonOut.write(knobs == null ? Map.of() : knobs.asMap())));
    server.createContext("/set", this::set);
    server.createContext("/status", this::status);
    server.createContext("/start", ex -> action(ex, "start"));
    server.createContext("/pause", ex -> action(ex, "pause"));
    server.createContext("/stop", ex -> action(ex, "stop"));
    server.createContext("/backfill", ex -> action(ex, "backfill"));
    server.createContext("/report", ex -> action(ex, "report"));
    server.createContext("/register", this::register);
    server.createContext("/heap", this::heap);
    server.start();
    poller.scheduleWithFixedDelay(this::pollInstances, 500, 1000, TimeUnit.MILLISECONDS);
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public String url() {
    return "http://127.0.0.1:" + port();
  }

  /** Adds a section to {@code /status} (e.g. "replication"), computed on each call. */
  public ControlServer section(String key, Supplier<Object> value) {
    sections.put(key, value);
    return this;
  }

  /** Registers this console with a coordinator now and every 2 s (so a restarted coordinator learns of it again). */
  public ControlServer registerWith(String coordinatorUrl) {
    String base = coordinatorUrl.endsWith("/")
        ? coordinatorUrl.substring(0, coordinatorUrl.length() - 1)
        : coordinatorUrl;
    URI uri = URI.create(base + "/register?name=" + enc(name) + "&url=" + enc(url()));
    registerUri = uri;
    registrar = Executors.newSingleThreadScheduledExecutor(daemon("bench-register"));
    registrar.scheduleWithFixedDelay(
        () -> {
          try {
            http.send(
                HttpRequest.newBuilder(uri)
                    .timeout(Duration.ofSeconds(2))
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.discarding());
          } catch (IOException e) {
            // the coordinator is not up (yet): the next attempt follows in 2 s
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        },
        0,
        2,
        TimeUnit.SECONDS);
    return this;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private void page(HttpExchange ex) throws IOException {
    if (!ex.getRequestURI().getPath().equals("/")) {
      reply(
          ex,
          404,
          "{\"error\":" + JsonOut.write("no such page: " + ex.getRequestURI().getPath()) + "}");
      return;
    }
    try (InputStream in = ControlServer.class.getResourceAsStream("console.html")) {
      if (in == null) throw new IOException("console.html missing from the classpath");
      byte[] b = in.readAllBytes();
      ex.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
      ex.sendResponseHeaders(200, b.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(b);
      }
    }
  }

  private static Map<String, String> params(HttpExchange ex) throws IOException {
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

  private static String error(String message) {
    return "{\"error\":" + JsonOut.write(message) + "}";
  }

  private void set(HttpExchange ex) throws IOException {
    runHereAndForward(ex, "/set", knobs != null, (params, out) -> {
      try {
        knobs.setAll(params);
      } catch (IllegalArgumentException e) {
        throw new Refused(400, e.getMessage());
      }
      out.putAll(knobs.asMap());
    });
  }

  /** What a call does on this console: fills {@code out}, or throws {@link Refused}. */
  private interface LocalCall {
    void run(Map<String, String> params, Map<String, Object> out) throws Refused;
  }

  /** A call this console cannot carry out: the HTTP status and the message to reply with. */
  private static final class Refused extends Exception {
    final int status;

    Refused(int status, String message) {
      super(message);
      this.status = status;
    }
  }

  /**
   * The shape of every call that can be addressed ({@code instance=}): runs it here when it is
   * addressed to this console (and {@code runsHere}), forwards it to the registered instances it
   * names, and replies with both, or 400 when it names no instance.
   */
  private void runHereAndForward(HttpExchange ex, String path, boolean runsHere, LocalCall local)
      throws IOException {
    Map<String, String> params;
    try {
      params = params(ex);
    } catch (IllegalArgumentException e) {
      reply(ex, 400, error(e.getMessage()));
      return;
    }
    String where = params.remove("instance");
    Map<String, Object> out = new LinkedHashMap<>();
    if (runsHere
        && (where == null || where.equals("all") || where.equals("local") || where.equals(name))) {
      try {
        local.run(params, out);
      } catch (Refused e) {
        reply(ex, e.status, error(e.getMessage()));
        return;
      }
    }
    Map<String, Object> forwarded = forward(path, params, where);
    if (forwarded == null) {
      reply(ex, 400, error("no instance named \"" + where + "\"; instances: " + instanceNames()));
      return;
    }
    if (!forwarded.isEmpty()) out.put("instances", forwarded);
    reply(ex, 200, JsonOut.write(out));
  }

  private List<String> instanceNames() {
    List<String> n = new ArrayList<>(instances.keySet());
    if (knobs != null) n.add(0, name);
    return n;
  }

  /**
   * Sends a call to the registered instances {@code where} names (null/all: every one; local or this
   * console's name: none); returns per instance its reply or error, or null when no instance has that name.
   */
  private Map<String, Object> forward(String path, Map<String, String> params, String where) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (where != null && (where.equals("local") || (where.equals(name) && knobs != null)))
      return out;
    List<Instance> to = new ArrayList<>();
    for (Instance i : instances.values()) {
      if (where == null || where.equals("all") || where.equals(i.name)) to.add(i);
    }
    if (to.isEmpty() && where != null && !where.equals("all")) return null;
    StringBuilder q = new StringBuilder("instance=local");
    params.forEach((k, v) -> q.append('&').append(enc(k)).append('=').append(enc(v)));
    for (Instance i : to) {
      try {
        HttpResponse<String> r = http.send(
            HttpRequest.newBuilder(URI.create(i.url + path + "?" + q))
                .timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
        out.put(
            i.name,
            r.statusCode() == 200
                ? JsonIn.parseObject(r.body())
                : Map.of("error", "HTTP " + r.statusCode() + ": " + r.body()));
      } catch (IOException | RuntimeException e) {
        out.put(
            i.name,
            Map.of("error", "instance " + i.name + " at " + i.url + " did not answer: " + e));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return out;
  }

  private void action(HttpExchange ex, String what) throws IOException {
    runHereAndForward(ex, "/" + what, bench != null, (params, out) -> {
      try {
        switch (what) {
          case "start" -> bench.resume();
          case "pause" -> bench.pause();
          case "backfill" -> out.put("backfillStarted", bench.backfillNow());
          case "report" -> out.put("files", writeReport());
          default -> {
            // the report of a stopped run is written by its main once run() returns
            bench.stop();
          }
        }
      } catch (Exception e) {
        throw new Refused(500, what + " failed: " + e);
      }
      out.put("state", state());
    });
  }

  private List<String> writeReport() throws Exception {
    if (reportWriter == null) throw new IllegalStateException("this console has no report");
    List<String> files = new ArrayList<>();
    for (Path p : reportWriter.call()) files.add(p.toAbsolutePath().toString());
    return files;
  }

  private String state() {
    if (bench == null) return "coordinator";
    if (bench.stopping()) return "stopped";
    if (bench.backfilling()) return "backfilling";
    return bench.paused() ? "paused" : "running";
  }

  private void status(HttpExchange ex) throws IOException {
    Map<String, String> params;
    try {
      params = params(ex);
    } catch (IllegalArgumentException e) {
      reply(ex, 400, error(e.getMessage()));
      return;
    }
    double since;
    try {
      since = Double.parseDouble(params.getOrDefault("since", "-1"));
    } catch (NumberFormatException e) {
      reply(ex, 400, error("since: \"" + params.get("since") + "\" is not a number of seconds"));
      return;
    }
    reply(ex, 200, JsonOut.write(statusMap(since)));
  }

  /** What {@code /status?since=} returns. */
  public Map<String, Object> statusMap(double since) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", name);
    m.put("state", state());
    m.put("url", url());
    if (bench != null) {
      m.put("t", bench.elapsedSeconds());
      m.put("settings", knobs.asMap());
      m.put("driver", bench.driver().name());
      List<Sample> samples = bench.samplesAfter(since);
      m.put("samples", samples);
      List<Bench.Event> events = new ArrayList<>();
      for (Bench.Event e : bench.events()) {
        if (e.t() > since || since < 0) events.add(e);
      }
      m.put("events", events);
      m.put("totals", bench.totals());
      List<Sample> last = bench.samplesAfter(bench.elapsedSeconds() - 3);
      m.put("last", last.isEmpty() ? null : last.get(last.size() - 1));
    } else if (knobs != null) {
      m.put("settings", knobs.asMap());
    }
    sections.forEach((k, v) -> m.put(k, v.get()));
    if (!instances.isEmpty()) {
      List<Map<String, Object>> list = new ArrayList<>();
      double opsPerSec = 0;
      long reads = 0;
      long writes = 0;
      long errors = 0;
      for (Instance i : instances.values()) {
        Map<String, Object> s = i.status;
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("name", i.name);
        row.put("url", i.url);
        row.put("state", s.getOrDefault("state", "?"));
        row.put("ageSeconds", (System.nanoTime() - i.lastSeenNanos) / 1e9);
        row.put("finished", i.finished);
        row.put("settings", s.get("settings"));
        row.put("last", s.get("last"));
        row.put("totals", s.get("totals"));
        if (i.error != null) row.put("error", i.error);
        list.add(row);
        if (s.get("last") instanceof Map<?, ?> l) opsPerSec += perSec(l);
        if (s.get("totals") instanceof Map<?, ?> t) {
          reads += num(t.get("reads"));
          writes += num(t.get("writes"));
          errors += num(t.get("errors"));
        }
      }
      if (m.get("last") instanceof Sample own) opsPerSec += own.opsPerSec();
      if (m.get("totals") instanceof Map<?, ?> t) {
        reads += num(t.get("reads"));
        writes += num(t.get("writes"));
        errors += num(t.get("errors"));
      }
      m.put("instances", list);
      m.put(
          "sum",
          Map.of(
              "opsPerSec",
              opsPerSec,
              "reads",
              reads,
              "writes",
              writes,
              "errors",
              errors,
              "instances",
              list.size() + (bench != null ? 1 : 0)));
    }
    return m;
  }

  private static double perSec(Map<?, ?> sample) {
    double secs = num(sample.get("seconds"));
    return secs <= 0 ? 0 : (num(sample.get("reads")) + num(sample.get("writes"))) / secs;
  }

  private static double num(Object o) {
    return o instanceof Number n ? n.doubleValue() : 0;
  }

  private void register(HttpExchange ex) throws IOException {
    Map<String, String> p;
    try {
      p = params(ex);
    } catch (IllegalArgumentException e) {
      reply(ex, 400, error(e.getMessage()));
      return;
    }
    String n = p.get("name");
    String u = p.get("url");
    if (n == null || n.isBlank() || u == null || !u.startsWith("http")) {
      reply(
          ex,
          400,
          error("register needs name=<instance name>&url=<http://host:port of its console>, got "
              + p));
      return;
    }
    Instance i = instances.compute(
        n, (k, old) -> old != null && old.url.equals(u) ? old : new Instance(n, u));
    i.lastSeenNanos = System.nanoTime();
    String last = p.get("final");
    if (last != null) {
      try {
        i.status = JsonIn.parseObject(last);
      } catch (RuntimeException e) {
        reply(ex, 400, error("final: not a status document: " + e.getMessage()));
        return;
      }
      i.error = null;
    }
    i.finished = last != null;
    reply(ex, 200, JsonOut.write(Map.of("registered", n, "instances", instanceNames())));
  }

  /** Fetches each instance's status (its totals and last sample); drops instances silent for 10 s. */
  private void pollInstances() {
    for (Instance i : instances.values()) {
      if (i.finished) {
        continue;
      }
      try {
        HttpResponse<String> r = http.send(
            HttpRequest.newBuilder(URI.create(i.url + "/status?since=1e18"))
                .timeout(Duration.ofSeconds(2))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          i.status = JsonIn.parseObject(r.body());
          i.lastSeenNanos = System.nanoTime();
          i.error = null;
        } else {
          i.error = "HTTP " + r.statusCode();
        }
      } catch (IOException | RuntimeException e) {
        i.error = e.toString();
        if (System.nanoTime() - i.lastSeenNanos > INSTANCE_STALE.toNanos())
          instances.remove(i.name, i);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** The instances' latest status as polled (name → status), for callers in this JVM. */
  public Map<String, Map<String, Object>> instanceStatus() {
    Map<String, Map<String, Object>> m = new LinkedHashMap<>();
    instances.forEach((k, v) -> m.put(k, v.status));
    return m;
  }

  /** Polls every instance now (instead of waiting for the next second). */
  public void refreshInstances() {
    pollInstances();
  }

  private void heap(HttpExchange ex) throws IOException {
    System.gc();
    long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    reply(
        ex,
        200,
        JsonOut.write(Map.of(
            "heapUsedBytes",
            used,
            "afterFullGc",
            true,
            "t",
            bench == null ? 0 : bench.elapsedSeconds())));
  }

  /**
   * An instance that ends tells its coordinator its final figures, so the coordinator's sum after a
   * stop is the instances' final totals, not the last poll before they went away.
   */
  private void pushFinalStatus() {
    if (bench == null || registerUri == null) {
      return;
    }
    String body = "final=" + enc(JsonOut.write(statusMap(Double.MAX_VALUE)));
    try {
      http.send(
          HttpRequest.newBuilder(registerUri)
              .timeout(Duration.ofSeconds(2))
              .header("Content-Type", "application/x-www-form-urlencoded")
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build(),
          HttpResponse.BodyHandlers.discarding());
    } catch (IOException e) {
      // the coordinator is gone: nothing to tell
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void reply(HttpExchange ex, int code, String json) throws IOException {
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    ex.sendResponseHeaders(code, b.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(b);
    }
  }

  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    if (registrar != null) {
      registrar.shutdownNow();
      pushFinalStatus();
    }
    poller.shutdownNow();
    server.stop(0);
    executor.shutdownNow();
  }
}
