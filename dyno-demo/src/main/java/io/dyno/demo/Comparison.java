package io.dyno.demo;

import io.dyno.demo.bench.Bench;
import io.dyno.demo.bench.BenchConfig;
import io.dyno.demo.bench.BenchResult;
import io.dyno.demo.bench.Driver;
import io.dyno.demo.bench.NodeStat;
import io.dyno.demo.drivers.Drivers;
import io.dyno.demo.drivers.RedisBenchmark;
import io.dyno.demo.target.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Peer comparison in one run: the same workload against the same cluster, one variant after the
 * other (a driver, optionally with its own settings, e.g. {@code dyno:pipeline=3-10} or
 * {@code dyno:consistency=dc_quorum}; several settings joined with {@code +}), plus
 * {@code redis-benchmark} when it is on the PATH. The keys are backfilled once, before the first
 * variant. The result is a ratio table against a baseline (plain Jedis pools when present).
 */
public final class Comparison {
  /** One row of the ratio table. */
  public record Row(String variant, double opsPerSec, double ratioToBaseline, double ratioToPlainSameDriver,
      double p50Ms, double p99Ms, long errors, double forwardedPercent, String note) {}

  private final Target target;
  private final BenchConfig base;
  private final int connsPerNode;
  private final Consumer<String> out;
  private final List<BenchResult> results = new ArrayList<>();
  private final List<Row> rows = new ArrayList<>();
  private final Map<String, Object> redisBenchmark = new LinkedHashMap<>();

  public Comparison(Target target, BenchConfig base, int connsPerNode, Consumer<String> out) {
    this.target = target;
    this.base = base;
    this.connsPerNode = connsPerNode;
    this.out = out;
  }

  public List<BenchResult> results() {
    return results;
  }

  public List<Row> rows() {
    return rows;
  }

  public Map<String, Object> redisBenchmark() {
    return redisBenchmark;
  }

  public void run(List<String> variants) throws Exception {
    boolean backfilled = !base.backfill;
    Map<String, BenchResult> byVariant = new LinkedHashMap<>();
    for (String v : variants) {
      if (v.equals("redis-benchmark")) {
        continue;
      }
      int colon = v.indexOf(':');
      String driverName = colon < 0 ? v : v.substring(0, colon);
      BenchConfig.Builder b = base.toBuilder().backfill(!backfilled);
      if (colon >= 0) {
        for (String kv : v.substring(colon + 1).split("\\+")) {
          int eq = kv.indexOf('=');
          if (eq <= 0) {
            throw new IllegalArgumentException("comparison variant \"" + v + "\": expected driver:name=value[+name=value]");
          }
          b.set(kv.substring(0, eq), kv.substring(eq + 1));
        }
      }
      BenchConfig cfg = b.build();
      out.accept("---- " + v + " ----");
      try (Driver d = Drivers.create(driverName, target, cfg.consistency, connsPerNode, Duration.ofSeconds(2))) {
        Bench bench = new Bench(cfg, d, out).targetName(target.describe()).serverCounters(target.serverCounters());
        BenchResult r = bench.run();
        out.accept(r.summaryText());
        results.add(r);
        byVariant.put(v, r);
      }
      backfilled = true;
    }
    String baseline = byVariant.containsKey("jedis-pools") ? "jedis-pools" : byVariant.keySet().stream().findFirst().orElse(null);
    double baseOps = baseline == null ? 0 : byVariant.get(baseline).opsPerSec();
    byVariant.forEach((v, r) -> {
      String driverName = v.contains(":") ? v.substring(0, v.indexOf(':')) : v;
      BenchResult plain = byVariant.get(driverName);
      long req = r.nodes().stream().mapToLong(NodeStat::serverRequests).filter(x -> x >= 0).sum();
      long fwd = r.nodes().stream().mapToLong(NodeStat::serverForwarded).filter(x -> x >= 0).sum();
      rows.add(new Row(v, r.opsPerSec(), baseOps == 0 ? 0 : r.opsPerSec() / baseOps,
          plain == null || plain == r ? 1.0 : r.opsPerSec() / plain.opsPerSec(),
          r.p50Micros() / 1000.0, r.p99Micros() / 1000.0, r.errors(), req == 0 ? -1 : 100.0 * fwd / req, ""));
    });
    if (variants.contains("redis-benchmark")) {
      runRedisBenchmark(baseOps);
    }
    out.accept(table(baseline));
  }

  private void runRedisBenchmark(double baseOps) {
    if (!RedisBenchmark.available()) {
      out.accept("redis-benchmark is not on the PATH: skipped (apt package redis-tools)");
      redisBenchmark.put("skipped", "redis-benchmark not on PATH");
      return;
    }
    int clients = base.readers + base.writers + base.threads;
    int pipeline = 1;
    long requests = (long) Math.max(20_000, Math.min(2_000_000, rows.isEmpty() ? 100_000
        : rows.get(0).opsPerSec() * base.duration.toSeconds() / 2));
    try {
      out.accept("---- redis-benchmark (" + clients + " clients over " + target.hosts().size() + " nodes, GET and SET separately) ----");
      Map<String, RedisBenchmark.Result> r = RedisBenchmark.run(target.hosts(), clients, requests, base.valueSize,
          base.keys, pipeline, 300);
      RedisBenchmark.Result get = r.get("GET");
      RedisBenchmark.Result set = r.get("SET");
      double readShare = base.threads > 0 ? base.readPercent / 100.0
          : (double) base.readers / Math.max(1, base.readers + base.writers);
      // The time a mixed stream would take: reads at GET speed, writes at SET speed.
      double mixed = 1.0 / (readShare / get.rps() + (1 - readShare) / set.rps());
      redisBenchmark.put("GET", get);
      redisBenchmark.put("SET", set);
      redisBenchmark.put("mixedEquivalentRps", mixed);
      rows.add(new Row("redis-benchmark", mixed, baseOps == 0 ? 0 : mixed / baseOps, 1.0, get.p50Ms(), Math.max(get.p99Ms(), set.p99Ms()),
          0, -1, String.format("GET %.0f/s, SET %.0f/s run separately; mix computed", get.rps(), set.rps())));
    } catch (Exception e) {
      out.accept("redis-benchmark failed: " + e.getMessage());
      redisBenchmark.put("failed", e.getMessage());
    }
  }

  /** The ratio table as text. */
  public String table(String baseline) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format("%n%-36s %10s %10s %12s %9s %9s %8s %10s  %s%n", "variant", "ops/s", "vs " + (baseline == null ? "-" : baseline),
        "vs plain drv", "p50 ms", "p99 ms", "errors", "forwarded", "note"));
    for (Row r : rows) {
      sb.append(String.format("%-36s %10.0f %10.2f %12.2f %9.2f %9.2f %8d %10s  %s%n", r.variant(), r.opsPerSec(),
          r.ratioToBaseline(), r.ratioToPlainSameDriver(), r.p50Ms(), r.p99Ms(), r.errors(),
          r.forwardedPercent() < 0 ? "-" : String.format("%.1f%%", r.forwardedPercent()), r.note()));
    }
    return sb.toString();
  }
}
