package io.dyno.loadgen.bench;

import static io.dyno.loadgen.bench.HttpExchanges.error;
import static io.dyno.loadgen.bench.HttpExchanges.paramsOrRefuse;
import static io.dyno.loadgen.bench.HttpExchanges.reply;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
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
 * Without a bench (a pure coordinator) the page shows the registered instances only. The
 * instances are {@link RegisteredInstances}; this console's own registration with a coordinator
 * is a {@link CoordinatorRegistration}.
 */
public final class ControlServer implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService executor;
  private final Knobs knobs;
  private final Bench bench;
  private final String name;
  private final Callable<List<Path>> reportWriter;
  private final Map<String, Supplier<Object>> sections = new ConcurrentHashMap<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final RegisteredInstances instances = new RegisteredInstances(http);
  private final ScheduledExecutorService poller;
  private volatile CoordinatorRegistration registration;
  private volatile boolean closed;

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
    poller.scheduleWithFixedDelay(instances::poll, 500, 1000, TimeUnit.MILLISECONDS);
  }

  static ThreadFactory daemon(String name) {
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
    registration = new CoordinatorRegistration(http, coordinatorUrl, name, url());
    return this;
  }

  private void page(HttpExchange ex) throws IOException {
    if (!ex.getRequestURI().getPath().equals("/")) {
      reply(ex, 404, error("no such page: " + ex.getRequestURI().getPath()));
      return;
    }
    try (InputStream in = ControlServer.class.getResourceAsStream("console.html")) {
      if (in == null) throw new IOException("console.html missing from the classpath");
      ex.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
      HttpExchanges.send(ex, 200, in.readAllBytes());
    }
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
    Map<String, String> params = paramsOrRefuse(ex);
    if (params == null) return;
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
    // "local", or this console's own name when it has settings: addressed here only.
    boolean hereOnly =
        where != null && (where.equals("local") || (where.equals(name) && knobs != null));
    Map<String, Object> forwarded = hereOnly ? Map.of() : instances.forward(path, params, where);
    if (forwarded == null) {
      reply(ex, 400, error("no instance named \"" + where + "\"; instances: " + instanceNames()));
      return;
    }
    if (!forwarded.isEmpty()) out.put("instances", forwarded);
    reply(ex, 200, JsonOut.write(out));
  }

  private List<String> instanceNames() {
    List<String> n = new ArrayList<>(instances.names());
    if (knobs != null) n.add(0, name);
    return n;
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
    Map<String, String> params = paramsOrRefuse(ex);
    if (params == null) return;
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
      m.put("samples", bench.samplesAfter(since));
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
    instances.addTo(m, bench != null);
    return m;
  }

  private void register(HttpExchange ex) throws IOException {
    Map<String, String> p = paramsOrRefuse(ex);
    if (p == null) return;
    String registered;
    try {
      registered = instances.register(p);
    } catch (IllegalArgumentException e) {
      reply(ex, 400, error(e.getMessage()));
      return;
    }
    reply(ex, 200, JsonOut.write(Map.of("registered", registered, "instances", instanceNames())));
  }

  /** The instances' latest status as polled (name → status), for callers in this JVM. */
  public Map<String, Map<String, Object>> instanceStatus() {
    return instances.statusByName();
  }

  /** Polls every instance now (instead of waiting for the next second). */
  public void refreshInstances() {
    instances.poll();
  }

  private void heap(HttpExchange ex) throws IOException {
    System.gc();
    long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    double t = bench == null ? 0 : bench.elapsedSeconds();
    reply(ex, 200, JsonOut.write(Map.of("heapUsedBytes", used, "afterFullGc", true, "t", t)));
  }

  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    CoordinatorRegistration r = registration;
    if (r != null) {
      r.close();
      // An instance that ends tells its coordinator its final figures.
      if (bench != null) r.pushFinalStatus(JsonOut.write(statusMap(Double.MAX_VALUE)));
    }
    poller.shutdownNow();
    server.stop(0);
    executor.shutdownNow();
  }
}
