package io.dyno.demo.drivers;

import com.netflix.spectator.api.Counter;
import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Meter;
import com.netflix.spectator.api.Registry;
import com.netflix.spectator.api.Timer;
import com.netflix.spectator.api.histogram.PercentileBuckets;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.metrics.DynoMetrics;
import io.dyno.demo.bench.Driver;
import io.dyno.demo.bench.LatencyHistogram;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.DynoPipeline;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import redis.clients.jedis.Response;

/**
 * Dyno: {@link DynoJedisClient} on dyno-core's engine (per-node pools, token-aware, local rack
 * first, failover), recording to its own Spectator registry. Borrow delays per progress interval
 * come from the engine's {@code dyno.pool.borrow} percentile timers.
 */
public final class DynoDriver implements Driver {
  private final Registry registry;
  private final DynoJedisClient client;
  private final DynoJedisClient calls;
  private final String name;
  private long[] lastBorrowBuckets = new long[PercentileBuckets.length()];
  private volatile boolean closed;

  public DynoDriver(List<Host> hosts, List<HostToken> tokens, String localRack, ConsistencyLevel consistency,
      int maxConnsPerHost, Duration timeout) {
    this(hosts, tokens, localRack, consistency, maxConnsPerHost, timeout, new DefaultRegistry());
  }

  public DynoDriver(List<Host> hosts, List<HostToken> tokens, String localRack, ConsistencyLevel consistency,
      int maxConnsPerHost, Duration timeout, Registry registry) {
    this(() -> hosts, () -> tokens, localRack, consistency, maxConnsPerHost, timeout, registry, null);
  }

  /** Hosts and tokens as suppliers (re-read every {@code refresh}, null = client default), so a demo can report live node status. */
  public DynoDriver(Supplier<List<Host>> hosts, Supplier<List<HostToken>> tokens, String localRack,
      ConsistencyLevel consistency, int maxConnsPerHost, Duration timeout, Registry registry, Duration refresh) {
    this.registry = registry;
    this.name = consistency == ConsistencyLevel.DC_ONE ? "dyno" : "dyno-" + consistency.name().toLowerCase().replace("_", "");
    DynoConfig config = DynoConfig.builder()
        .applicationName("bench")
        .maxConnsPerHost(maxConnsPerHost)
        .connectTimeout(timeout)
        .socketTimeout(timeout)
        .build();
    DynoJedisClient.Builder b = DynoJedisClient.builder()
        .applicationName("bench")
        .hostSupplier(hosts::get)
        .tokenMapSupplier(h -> tokens.get())
        .localRack(localRack)
        .config(config)
        .registry(registry);
    if (refresh != null) {
      b.topologyRefreshPeriod(refresh);
    }
    this.client = b.build();
    this.calls = consistency == ConsistencyLevel.DC_ONE ? client
        : client.withOptions(CallOptions.defaults().withConsistency(consistency));
  }

  public DynoJedisClient client() {
    return calls;
  }

  public Registry registry() {
    return registry;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String get(String key) {
    return calls.get(key);
  }

  @Override
  public void set(String key, String value) {
    calls.set(key, value);
  }

  @Override
  public void pipeline(List<Op> ops) {
    try (DynoPipeline p = calls.pipelined()) {
      List<Response<?>> rs = new ArrayList<>(ops.size());
      for (Op op : ops) {
        rs.add(op.read() ? p.get(op.key()) : p.set(op.key(), op.value()));
      }
      p.sync();
      for (Response<?> r : rs) {
        r.get();
      }
    }
  }

  @Override
  public boolean measuresBorrow() {
    return true;
  }

  /**
   * Borrow delays since the previous call, from the engine's {@code dyno.pool.borrow} meters.
   * Spectator's PercentileTimer clamps values to its range, whose default floor is 10 ms (dyno-core
   * builds it without {@code withRange}), so every faster borrow lands in the floor bucket. Those
   * are recorded at the interval's exact mean borrow time (the timer's total time / count, which
   * is not clamped) when that mean is below the floor: an approximation, flagged in the report.
   */
  @Override
  public synchronized LatencyHistogram borrowSinceLastCall() {
    long[] now = borrowBuckets(registry);
    double[] totals = borrowTotals(registry);
    double dCount = totals[0] - lastTotals[0];
    double dNanos = totals[1] - lastTotals[1];
    long meanMicros = dCount <= 0 ? 0 : (long) (dNanos / dCount / 1000);
    int floor = PercentileBuckets.indexOf(TimeUnit.MILLISECONDS.toNanos(10));
    LatencyHistogram h = new LatencyHistogram();
    for (int i = 0; i < now.length; i++) {
      long d = now[i] - lastBorrowBuckets[i];
      if (d > 0) {
        long micros = TimeUnit.NANOSECONDS.toMicros(PercentileBuckets.get(i));
        h.recordMicros(i <= floor ? Math.min(micros, meanMicros) : micros, d);
      }
    }
    lastBorrowBuckets = now;
    lastTotals = totals;
    return h;
  }

  private double[] lastTotals = new double[2];

  /** Count and total nanoseconds of every node's borrow timer. */
  static double[] borrowTotals(Registry registry) {
    double[] t = new double[2];
    registry.stream().forEach(m -> {
      if (m.id().name().equals(DynoMetrics.POOL_BORROW) && m instanceof Timer timer) {
        t[0] += timer.count();
        t[1] += timer.totalTime();
      }
    });
    return t;
  }

  /** The engine's borrow-delay histogram over all nodes (Spectator percentile buckets, cumulative). */
  static long[] borrowBuckets(Registry registry) {
    long[] counts = new long[PercentileBuckets.length()];
    registry.stream().forEach(m -> addBuckets(m, counts));
    return counts;
  }

  private static void addBuckets(Meter m, long[] counts) {
    if (!m.id().name().equals(DynoMetrics.POOL_BORROW) || !(m instanceof Counter c)) {
      return;
    }
    for (com.netflix.spectator.api.Tag t : m.id().tags()) {
      if (t.key().equals("percentile") && t.value().startsWith("T")) {
        counts[Integer.parseInt(t.value().substring(1), 16)] += c.count();
      }
    }
  }

  /** The numbers a user would watch, from the client's registry. */
  public static Map<String, String> watchedMetrics(Registry registry) {
    Map<String, String> out = new LinkedHashMap<>();
    long[] b = borrowBuckets(registry);
    LatencyHistogram borrow = new LatencyHistogram();
    for (int i = 0; i < b.length; i++) {
      borrow.recordMicros(TimeUnit.NANOSECONDS.toMicros(PercentileBuckets.get(i)), b[i]);
    }
    double[] totals = borrowTotals(registry);
    long p99Bucket = borrow.percentileMicros(0.99);
    out.put("borrow delay", String.format("mean %.3f ms, p99 %s (%d borrows)",
        totals[0] == 0 ? 0 : totals[1] / totals[0] / 1e6,
        p99Bucket <= 1.05 * TimeUnit.NANOSECONDS.toMicros(PercentileBuckets.get(PercentileBuckets.indexOf(TimeUnit.MILLISECONDS.toNanos(10))))
            ? "<= 10 ms (Spectator's PercentileTimer floor)" : String.format("%.3f ms", p99Bucket / 1000.0),
        (long) totals[0]));
    long ops = 0;
    double totalNanos = 0;
    long failures = 0;
    long failovers = 0;
    long retries = 0;
    long timeouts = 0;
    for (Meter m : (Iterable<Meter>) registry.stream()::iterator) {
      String n = m.id().name();
      if (n.equals(DynoMetrics.OP_LATENCY) && m instanceof Timer t) {
        ops += t.count();
        totalNanos += t.totalTime();
        String outcome = tag(m, "outcome");
        if (outcome != null && !outcome.equals("success")) failures += t.count();
      } else if (n.equals(DynoMetrics.OP_FAILOVERS) && m instanceof Counter c) {
        failovers += c.count();
      } else if (n.equals(DynoMetrics.OP_RETRIES) && m instanceof Counter c) {
        retries += c.count();
      } else if (n.equals(DynoMetrics.POOL_BORROW_TIMEOUTS) && m instanceof Counter c) {
        timeouts += c.count();
      }
    }
    out.put("operations", String.format("%d, mean latency %.3f ms, failed %d", ops, ops == 0 ? 0 : totalNanos / ops / 1e6, failures));
    out.put("failovers", Long.toString(failovers));
    out.put("retries", Long.toString(retries));
    out.put("borrow timeouts", Long.toString(timeouts));
    return out;
  }

  static String tag(Meter m, String key) {
    for (com.netflix.spectator.api.Tag t : m.id().tags()) {
      if (t.key().equals(key)) return t.value();
    }
    return null;
  }

  @Override
  public Map<String, String> summary() {
    return watchedMetrics(registry);
  }

  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    client.close();
  }
}
