package io.dyno.loadgen.drivers;

import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Registry;
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
    long[] now = DynoClientFigures.borrowBuckets(registry, borrowMeter);
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

  @Override
  public Map<String, String> summary() {
    return DynoClientFigures.watched(registry);
  }

  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    client.close();
  }
}
