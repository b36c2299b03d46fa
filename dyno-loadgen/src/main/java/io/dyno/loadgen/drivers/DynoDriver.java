package io.dyno.loadgen.drivers;

import com.netflix.spectator.api.Counter;
import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.DistributionSummary;
import com.netflix.spectator.api.Meter;
import com.netflix.spectator.api.Registry;
import com.netflix.spectator.api.Tag;
import com.netflix.spectator.api.Timer;
import com.netflix.spectator.api.histogram.PercentileBuckets;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.events.CallListener;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.metrics.DynoMetrics;
import io.dyno.jedis.DynoJedisAsync;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.DynoJedisClientBuilder;
import io.dyno.jedis.DynoPipeline;
import io.dyno.jedis.Transport;
import io.dyno.loadgen.bench.BenchConfig;
import io.dyno.loadgen.bench.Driver;
import io.dyno.loadgen.bench.Latencies;
import io.dyno.loadgen.bench.TracingMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;
import redis.clients.jedis.Response;

/**
 * Dyno: {@link DynoJedisClient} on dyno-core's engine (per-node pools, token-aware, local rack
 * first, failover), recording to its own Spectator registry. Borrow delays per progress interval
 * come from the engine's {@code dyno.pool.borrow} percentile timers; on the multiplexed transport
 * from {@code dyno.mux.queue.delay} (submit to write), which is what borrow delay means there.
 *
 * <p>Requests per node are counted here, not by the client (its metrics have no per-node request
 * counter): each key is charged to the node the client's own topology names first for it, the
 * local rack's owner, which is where the client sends it unless it fails over. Failovers and
 * retries are in {@link #summary()}; the servers' own counters show where requests really went.
 */
public final class DynoDriver implements Driver {
  private final Registry registry;
  private final DynoJedisClient client;
  private volatile DynoJedisClient calls;
  private volatile DynoJedisAsync asyncCalls;
  private volatile ConsistencyLevel consistency;
  private final String name;
  /** The meter that holds this client's borrow delay (see the class comment). */
  private final String borrowMeter;

  private long[] lastBorrowBuckets = new long[PercentileBuckets.length()];
  private final ConcurrentHashMap<String, LongAdder> perNode = new ConcurrentHashMap<>();
  private volatile boolean closed;

  public DynoDriver(
      List<Host> hosts,
      List<HostToken> tokens,
      String localRack,
      ConsistencyLevel consistency,
      int maxConnsPerHost,
      Duration timeout) {
    this(hosts, tokens, localRack, consistency, maxConnsPerHost, timeout, new DefaultRegistry());
  }

  public DynoDriver(
      List<Host> hosts,
      List<HostToken> tokens,
      String localRack,
      ConsistencyLevel consistency,
      int maxConnsPerHost,
      Duration timeout,
      Registry registry) {
    this(
        () -> hosts,
        () -> tokens,
        localRack,
        consistency,
        maxConnsPerHost,
        timeout,
        registry,
        null);
  }

  /** Hosts and tokens as suppliers (re-read every {@code refresh}, null = client default), so a run follows nodes that stop and start. */
  public DynoDriver(
      Supplier<List<Host>> hosts,
      Supplier<List<HostToken>> tokens,
      String localRack,
      ConsistencyLevel consistency,
      int maxConnsPerHost,
      Duration timeout,
      Registry registry,
      Duration refresh) {
    this(
        hosts,
        tokens,
        localRack,
        consistency,
        maxConnsPerHost,
        timeout,
        registry,
        refresh,
        Transport.MULTIPLEXED);
  }

  /**
   * Client settings a comparison variant may set: hedged reads (HedgePolicy text), the request
   * deadline (null: none), the multiplexed transport's connections per node (0: its default) and
   * writes awaiting replies per connection (-1: its default); and, for Lettuce (the one peer with a
   * setting here), its shared connections per node (0: the tool's default). {@code tracing}: see
   * {@link Drivers} (the Dyno drivers only).
   */
  public record Options(
      String hedge,
      Duration deadline,
      int muxConnections,
      int muxWrites,
      int lettuceConnections,
      TracingMode tracing) {
    public static final Options DEFAULTS = new Options("off", null, 0, -1, 0);

    /** Without tracing. */
    public Options(
        String hedge,
        Duration deadline,
        int muxConnections,
        int muxWrites,
        int lettuceConnections) {
      this(hedge, deadline, muxConnections, muxWrites, lettuceConnections, TracingMode.OFF);
    }

    public static Options of(BenchConfig c) {
      return new Options(
          c.hedge,
          c.deadline.isZero() ? null : c.deadline,
          c.muxConnections,
          c.muxWrites,
          c.connections,
          c.tracing);
    }
  }

  /** As above, on the given transport (the multiplexed one: a few shared connections per node). */
  public DynoDriver(
      Supplier<List<Host>> hosts,
      Supplier<List<HostToken>> tokens,
      String localRack,
      ConsistencyLevel consistency,
      int maxConnsPerHost,
      Duration timeout,
      Registry registry,
      Duration refresh,
      Transport transport) {
    this(
        hosts,
        tokens,
        localRack,
        consistency,
        maxConnsPerHost,
        timeout,
        registry,
        refresh,
        transport,
        Options.DEFAULTS,
        null);
  }

  /**
   * As above, with a variant's {@link Options} and a call listener installed on the client (null:
   * none); {@code options.tracing()} is not read here, the listener is what traces.
   */
  public DynoDriver(
      Supplier<List<Host>> hosts,
      Supplier<List<HostToken>> tokens,
      String localRack,
      ConsistencyLevel consistency,
      int maxConnsPerHost,
      Duration timeout,
      Registry registry,
      Duration refresh,
      Transport transport,
      Options options,
      CallListener.Factory listener) {
    this.registry = registry;
    String base = transport == Transport.MULTIPLEXED ? "dyno" : "dyno-pooled";
    this.borrowMeter =
        transport == Transport.MULTIPLEXED ? DynoMetrics.MUX_QUEUE_DELAY : DynoMetrics.POOL_BORROW;
    this.name = consistency == ConsistencyLevel.DC_ONE
        ? base
        : base + "-" + consistency.name().toLowerCase().replace("_", "");
    DynoConfig config = DynoConfig.builder()
        .applicationName("bench")
        .maxConnsPerHost(maxConnsPerHost)
        .connectTimeout(timeout)
        .socketTimeout(timeout)
        .hedgeReads(HedgePolicy.parse(options.hedge()))
        .requestDeadline(options.deadline())
        .build();
    DynoJedisClientBuilder b = DynoJedisClient.builder()
        .applicationName("bench")
        .hostSupplier(hosts::get)
        .tokenMapSupplier(h -> tokens.get())
        .localRack(localRack)
        .config(config)
        .transport(transport)
        .registry(registry);
    if (options.muxConnections() > 0) {
      b.muxConnectionsPerNode(options.muxConnections());
    }
    if (options.muxWrites() >= 0) {
      b.muxMaxWritesInFlight(options.muxWrites());
    }
    if (refresh != null) {
      b.topologyRefreshPeriod(refresh);
    }
    if (listener != null) {
      b.eventListener(listener);
    }
    this.client = b.build();
    consistency(consistency);
  }

  @Override
  public ConsistencyLevel consistency() {
    return consistency;
  }

  /** Later calls use {@code level}; the client, its pools and the driver's name stay as they are. */
  @Override
  public void consistency(ConsistencyLevel level) {
    DynoJedisClient view = level == ConsistencyLevel.DC_ONE
        ? client
        : client.withOptions(CallOptions.defaults().withConsistency(level));
    this.asyncCalls = view.async();
    this.calls = view;
    this.consistency = level;
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
    count(key);
    return calls.get(key);
  }

  @Override
  public void set(String key, String value) {
    count(key);
    calls.set(key, value);
  }

  @Override
  public boolean supportsAsync() {
    return true;
  }

  /** Through {@code client.async()}: on the multiplexed transport many requests share each round trip. */
  @Override
  public CompletableFuture<String> getAsync(String key) {
    count(key);
    return asyncCalls.get(key);
  }

  @Override
  public CompletableFuture<String> setAsync(String key, String value) {
    count(key);
    return asyncCalls.set(key, value);
  }

  /** Charges {@code key} to the node the client routes it to first (the local rack's owner). */
  private void count(String key) {
    List<Host> replicas = calls.topology().replicas(key);
    if (!replicas.isEmpty()) {
      perNode.computeIfAbsent(replicas.get(0).id(), k -> new LongAdder()).increment();
    }
  }

  @Override
  public Map<String, Long> requestsByNode() {
    Map<String, Long> m = new LinkedHashMap<>();
    for (Host h : calls.topology().hosts()) {
      LongAdder a = perNode.get(h.id());
      m.put(h.id(), a == null ? 0L : a.sum());
    }
    return m;
  }

  @Override
  public void pipeline(List<Op> ops) {
    try (DynoPipeline p = calls.pipelined()) {
      List<Response<?>> rs = new ArrayList<>(ops.size());
      for (Op op : ops) {
        count(op.key());
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
   * Borrow delays since the previous call, from the engine's {@code dyno.pool.borrow} percentile
   * buckets (each bucket counted at its upper bound; the timer's floor is 1 µs).
   */
  @Override
  public synchronized Histogram borrowSinceLastCall() {
    long[] now = borrowBuckets(registry, borrowMeter);
    Histogram h = Latencies.histogram();
    for (int i = 0; i < now.length; i++) {
      long d = now[i] - lastBorrowBuckets[i];
      if (d > 0) {
        h.recordValueWithCount(
            Latencies.clamp(TimeUnit.NANOSECONDS.toMicros(PercentileBuckets.get(i))), d);
      }
    }
    lastBorrowBuckets = now;
    return h;
  }

  /** Count and total nanoseconds of every node's borrow timer ({@code meter}). */
  static double[] borrowTotals(Registry registry, String meter) {
    double[] t = new double[2];
    registry.stream().forEach(m -> {
      if (m.id().name().equals(meter) && m instanceof Timer timer) {
        t[0] += timer.count();
        t[1] += timer.totalTime();
      }
    });
    return t;
  }

  /** The borrow-delay histogram ({@code meter}) over all nodes (Spectator percentile buckets, cumulative). */
  static long[] borrowBuckets(Registry registry, String meter) {
    long[] counts = new long[PercentileBuckets.length()];
    registry.stream().forEach(m -> addBuckets(m, meter, counts));
    return counts;
  }

  private static void addBuckets(Meter m, String meter, long[] counts) {
    if (!m.id().name().equals(meter) || !(m instanceof Counter c)) {
      return;
    }
    for (Tag t : m.id().tags()) {
      if (t.key().equals("percentile") && t.value().startsWith("T")) {
        counts[Integer.parseInt(t.value().substring(1), 16)] += c.count();
      }
    }
  }

  /** The numbers a user would watch, from the client's registry. */
  public static Map<String, String> watchedMetrics(Registry registry) {
    Map<String, String> out = new LinkedHashMap<>();
    boolean mux =
        registry.stream().anyMatch(m -> m.id().name().equals(DynoMetrics.MUX_QUEUE_DELAY));
    String meter = mux ? DynoMetrics.MUX_QUEUE_DELAY : DynoMetrics.POOL_BORROW;
    long[] b = borrowBuckets(registry, meter);
    Histogram borrow = Latencies.histogram();
    for (int i = 0; i < b.length; i++) {
      if (b[i] > 0)
        borrow.recordValueWithCount(
            Latencies.clamp(TimeUnit.NANOSECONDS.toMicros(PercentileBuckets.get(i))), b[i]);
    }
    double[] totals = borrowTotals(registry, meter);
    // Dyno's pool does not time a borrow that finds a free connection: it counts it as 0 ns. Only
    // borrows that waited are timed, so p50/p99 are small by construction while few borrows wait.
    // On the multiplexed transport the borrow is a lease; the wait is on the shared connection.
    out.put(
        "borrow delay",
        String.format(
            "mean %.3f ms, p50 %.3f ms, p99 %.3f ms (%d "
                + (mux
                    ? "requests; multiplexed: the time from submit to the write that carried each request, every one timed)"
                    : "borrows; a borrow that found a free connection is counted as 0, not timed; only waits are timed)"),
            totals[0] == 0 ? 0 : totals[1] / totals[0] / 1e6,
            Latencies.percentile(borrow, 0.50) / 1000.0,
            Latencies.percentile(borrow, 0.99) / 1000.0,
            (long) totals[0]));
    long ops = 0;
    double totalNanos = 0;
    long failures = 0;
    long failovers = 0;
    long retries = 0;
    long timeouts = 0;
    long writes = 0;
    long writtenCommands = 0;
    for (Meter m : (Iterable<Meter>) registry.stream()::iterator) {
      String n = m.id().name();
      if (n.equals(DynoMetrics.MUX_WRITE_COMMANDS) && m instanceof DistributionSummary d) {
        writes += d.count();
        writtenCommands += d.totalAmount();
      } else if (n.equals(DynoMetrics.OP_LATENCY) && m instanceof Timer t) {
        ops += t.count();
        totalNanos += t.totalTime();
        String outcome = tag(m, "outcome");
        if (outcome != null && !outcome.equals("success")) failures += t.count();
      } else if (n.equals(DynoMetrics.OP_FAILOVERS) && m instanceof Counter c) {
        failovers += c.count();
      } else if (n.equals(DynoMetrics.OP_RETRIES) && m instanceof Counter c) {
        retries += c.count();
      } else if ((n.equals(DynoMetrics.POOL_BORROW_TIMEOUTS)
              || n.equals(DynoMetrics.MUX_IN_FLIGHT_LIMIT_TIMEOUTS))
          && m instanceof Counter c) {
        timeouts += c.count();
      }
    }
    out.put(
        "operations",
        String.format(
            "%d, mean latency %.3f ms, failed %d",
            ops, ops == 0 ? 0 : totalNanos / ops / 1e6, failures));
    out.put("failovers", Long.toString(failovers));
    out.put("retries", Long.toString(retries));
    out.put("borrow timeouts", Long.toString(timeouts));
    if (writes > 0) {
      out.put(
          "commands per write",
          String.format(
              "%.1f (%d commands in %d writes to the nodes)",
              (double) writtenCommands / writes, writtenCommands, writes));
    }
    long[] hedges = new long[3];
    for (Meter m : (Iterable<Meter>) registry.stream()::iterator) {
      if (m.id().name().equals(DynoMetrics.HEDGES) && m instanceof Counter c) {
        String result = tag(m, "result");
        int i = "sent".equals(result) ? 0 : "won".equals(result) ? 1 : 2;
        hedges[i] += c.count();
      }
    }
    if (hedges[0] > 0) {
      out.put(
          "hedged reads",
          String.format(
              "%d sent, %d answered first, %d late answers dropped",
              hedges[0], hedges[1], hedges[2]));
    }
    return out;
  }

  static String tag(Meter m, String key) {
    for (Tag t : m.id().tags()) {
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
