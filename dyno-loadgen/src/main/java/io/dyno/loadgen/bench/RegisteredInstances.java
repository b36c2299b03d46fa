package io.dyno.loadgen.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The bench instances registered with a console (its coordinator side): their latest status,
 * polled every second, calls forwarded to them, and the sum over them shown in {@code /status}.
 * An instance silent for {@value #STALE_SECONDS} s is dropped; one that pushed its final status is
 * kept as it was.
 */
final class RegisteredInstances {
  static final int STALE_SECONDS = 10;

  /** A registered instance and the latest status it gave. */
  private static final class Instance {
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

  private final Map<String, Instance> instances = new ConcurrentHashMap<>();
  private final HttpClient http;

  RegisteredInstances(HttpClient http) {
    this.http = http;
  }

  boolean isEmpty() {
    return instances.isEmpty();
  }

  List<String> names() {
    return new ArrayList<>(instances.keySet());
  }

  /**
   * {@code POST /register?name=N&url=U[&final=<status>]}: adds or refreshes an instance; returns its
   * name. Throws IllegalArgumentException with the reason for a call that is not one.
   */
  String register(Map<String, String> p) {
    String n = p.get("name");
    String u = p.get("url");
    if (n == null || n.isBlank() || u == null || !u.startsWith("http")) {
      throw new IllegalArgumentException(
          "register needs name=<instance name>&url=<http://host:port of its console>, got " + p);
    }
    Instance i = instances.compute(
        n, (k, old) -> old != null && old.url.equals(u) ? old : new Instance(n, u));
    i.lastSeenNanos = System.nanoTime();
    String last = p.get("final");
    if (last != null) {
      try {
        i.status = JsonIn.parseObject(last);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException("final: not a status document: " + e.getMessage());
      }
      i.error = null;
    }
    i.finished = last != null;
    return n;
  }

  /**
   * Sends a call to the instances {@code where} names (null/all: every one) as {@code instance=local};
   * returns per instance its reply or error, or null when {@code where} names none of them.
   */
  Map<String, Object> forward(String path, Map<String, String> params, String where) {
    Map<String, Object> out = new LinkedHashMap<>();
    List<Instance> to = new ArrayList<>();
    for (Instance i : instances.values()) {
      if (where == null || where.equals("all") || where.equals(i.name)) to.add(i);
    }
    if (to.isEmpty() && where != null && !where.equals("all")) return null;
    StringBuilder q = new StringBuilder("instance=local");
    params.forEach((k, v) ->
        q.append('&').append(HttpExchanges.enc(k)).append('=').append(HttpExchanges.enc(v)));
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

  /** Fetches each instance's status (its totals and last sample); drops instances silent too long. */
  void poll() {
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
        if (System.nanoTime() - i.lastSeenNanos
            > Duration.ofSeconds(STALE_SECONDS).toNanos()) instances.remove(i.name, i);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** The instances' latest status as polled (name → status). */
  Map<String, Map<String, Object>> statusByName() {
    Map<String, Map<String, Object>> m = new LinkedHashMap<>();
    instances.forEach((k, v) -> m.put(k, v.status));
    return m;
  }

  /**
   * Adds to a console's own {@code status} the instances (one row each) and their sum with its own
   * load ({@code ownLoad}: the console runs a bench, whose "last" and "totals" are in {@code status}).
   */
  void addTo(Map<String, Object> status, boolean ownLoad) {
    if (instances.isEmpty()) return;
    List<Map<String, Object>> list = new ArrayList<>();
    double opsPerSec = 0;
    long reads = 0;
    long writes = 0;
    long errors = 0;
    for (Instance i : instances.values()) {
      Map<String, Object> s = i.status;
      list.add(row(i, s));
      if (s.get("last") instanceof Map<?, ?> l) opsPerSec += perSec(l);
      if (s.get("totals") instanceof Map<?, ?> t) {
        reads += num(t.get("reads"));
        writes += num(t.get("writes"));
        errors += num(t.get("errors"));
      }
    }
    if (status.get("last") instanceof Sample own) opsPerSec += own.opsPerSec();
    if (status.get("totals") instanceof Map<?, ?> t) {
      reads += num(t.get("reads"));
      writes += num(t.get("writes"));
      errors += num(t.get("errors"));
    }
    status.put("instances", list);
    status.put(
        "sum",
        Map.of(
            "opsPerSec", opsPerSec,
            "reads", reads,
            "writes", writes,
            "errors", errors,
            "instances", list.size() + (ownLoad ? 1 : 0)));
  }

  private static Map<String, Object> row(Instance i, Map<String, Object> s) {
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
    return row;
  }

  private static double perSec(Map<?, ?> sample) {
    double secs = num(sample.get("seconds"));
    return secs <= 0 ? 0 : (num(sample.get("reads")) + num(sample.get("writes"))) / secs;
  }

  private static double num(Object o) {
    return o instanceof Number n ? n.doubleValue() : 0;
  }
}
