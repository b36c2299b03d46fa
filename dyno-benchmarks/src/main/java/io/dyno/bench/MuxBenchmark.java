package io.dyno.bench;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.jedis.DynoJedisAsync;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.Transport;
import io.dyno.jedis.internal.MuxTransport;
import io.dyno.jedis.internal.mux.MuxConnection;
import io.dyno.jedis.internal.mux.MuxSettings;
import io.dyno.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.Protocol;

/**
 * 1 KiB GET from one loopback redis-server (started by the benchmark), 16 threads sharing:
 * <ul>
 *   <li>{@code mux}: one Dyno {@link MuxConnection} (issue #11), each thread waiting on its future;</li>
 *   <li>{@code muxWithMeters}: the same with the client's meters wired (queue delay recorded per
 *       request on the event loop), to see what metrics cost on the write path;</li>
 *   <li>{@code jedisPool}: Jedis 8 {@code JedisPool}, a commons-pool2 pool of 16 connections (one per thread), borrowed per GET;</li>
 *   <li>{@code lettuce}: one shared Lettuce connection, sync API (Lettuce's own multiplexing);</li>
 *   <li>{@code dynoPooled} / {@code dynoMux}: the whole {@link DynoJedisClient} (routing, the engine,
 *       metrics) in datastore mode against that server, on pooled sockets (16 per node) and on the
 *       multiplexed transport (2 shared connections).</li>
 *   <li>{@code dynoAsync} / {@code lettuceAsync}: each thread keeps {@value #IN_FLIGHT} GETs in flight
 *       through the asynchronous API (Dyno's {@code async()} on the multiplexed transport; Lettuce's
 *       async commands on its one connection), 256 over 16 threads; figures are per GET.</li>
 * </ul>
 * With {@code -prof io.dyno.bench.CpuPerOpProfiler}, each also reports the client JVM's CPU time
 * per operation ({@code cpu.per.op}): what a command costs the application's machine, apart from
 * how long it waits.
 * Run: {@code java -jar dyno-benchmarks/target/benchmarks.jar MuxBenchmark -f 1 -wi 2 -i 3 -w 2s -r 3s -prof gc}.
 * Average time per op at 16 threads is latency under load; throughput = 16 / avg. All three talk
 * to the same server in one run; absolute numbers depend on the machine, compare within a run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Threads(16)
@Fork(1)
public class MuxBenchmark {
  static final byte[] KEY = "bench:1k".getBytes();
  static final long TIMEOUT = TimeUnit.SECONDS.toNanos(5);
  static final int IN_FLIGHT = 16;

  RedisServer redis;
  EventLoopGroup group;
  MuxConnection mux;
  MuxConnection muxWithMeters;
  JedisPool jedis;
  RedisClient lettuceClient;
  StatefulRedisConnection<byte[], byte[]> lettuceConnection;
  RedisCommands<byte[], byte[]> lettuce;
  RedisAsyncCommands<byte[], byte[]> lettuceAsync;
  CommandArguments get;
  DynoJedisClient dynoPooled;
  DynoJedisClient dynoMux;
  DynoJedisAsync dynoMuxAsync;

  @Setup
  public void setUp() throws Exception {
    redis = RedisServer.start();
    int port = redis.port();
    byte[] value = new byte[1024];
    Arrays.fill(value, (byte) 'v');
    try (Connection c = new Connection(new HostAndPort("127.0.0.1", port), plain())) {
      c.executeCommand(new CommandArguments(Protocol.Command.SET).add(KEY).add(value));
    }
    group = MuxConnection.newEventLoopGroup(1, "bench-mux");
    mux = MuxConnection.open(
        "redis@" + port,
        new InetSocketAddress("127.0.0.1", port),
        group,
        MuxSettings.defaults(),
        null);
    Host node =
        Host.builder("127.0.0.1", port).rack("bench").datacenter("bench").build();
    muxWithMeters = MuxConnection.open(
        "redis@" + port,
        new InetSocketAddress("127.0.0.1", port),
        group,
        MuxSettings.builder()
            .listener(MuxTransport.nodeMeters(new Meters(new DefaultRegistry(), "bench"), node))
            .build(),
        null);
    GenericObjectPoolConfig<Jedis> pool = new GenericObjectPoolConfig<>();
    pool.setMaxTotal(16);
    pool.setMaxIdle(16);
    jedis = new JedisPool(pool, new HostAndPort("127.0.0.1", port), plain());
    lettuceClient = RedisClient.create(RedisURI.create("127.0.0.1", port));
    lettuceConnection = lettuceClient.connect(ByteArrayCodec.INSTANCE);
    lettuce = lettuceConnection.sync();
    lettuceAsync = lettuceConnection.async();
    get = new CommandArguments(Protocol.Command.GET).add(KEY);
    Host redisNode = Host.builder("127.0.0.1", port)
        .datastorePort(port)
        .rack("bench")
        .datacenter("bench")
        .build();
    dynoPooled = dyno(redisNode, "bench-pooled", Transport.POOLED);
    dynoMux = dyno(redisNode, "bench-mux", Transport.MULTIPLEXED);
    dynoMuxAsync = dynoMux.async();
    if (dynoPooled.get(KEY).length != 1024 || dynoMux.get(KEY).length != 1024) {
      throw new IllegalStateException("the 1 KiB value did not come back through DynoJedisClient");
    }
    if (((byte[]) mux.submit(get, TIMEOUT).get()).length != 1024
        || jedisPool().length != 1024
        || lettuce.get(KEY).length != 1024) {
      throw new IllegalStateException("the 1 KiB value did not come back");
    }
  }

  private static DynoJedisClient dyno(Host node, String app, Transport transport) {
    return DynoJedisClient.builder()
        .applicationName(app)
        .config(DynoConfig.builder().applicationName(app).maxConnsPerHost(16).build())
        .hostSupplier(() -> List.of(node))
        .tokenMapSupplier(hosts -> List.of(new HostToken(0L, node)))
        .localRack("bench")
        .datastoreMode(true)
        .transport(transport)
        .build();
  }

  private static DefaultJedisClientConfig plain() {
    return DefaultJedisClientConfig.builder()
        .protocol(null)
        .autoNegotiateProtocol(false)
        .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
        .build();
  }

  @TearDown
  public void tearDown() throws Exception {
    System.out.printf(
        "%nmux: %d commands in %d flushes (%.1f per flush)%n",
        mux.commandsWritten(),
        mux.flushes(),
        (double) mux.commandsWritten() / Math.max(1, mux.flushes()));
    mux.close();
    muxWithMeters.close();
    dynoPooled.close();
    dynoMux.close();
    jedis.close();
    lettuceConnection.close();
    lettuceClient.shutdown(0, 1, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    redis.close();
  }

  @Benchmark
  public byte[] mux() throws Exception {
    return (byte[]) mux.submit(get, TIMEOUT).get();
  }

  @Benchmark
  public byte[] muxWithMeters() throws Exception {
    return (byte[]) muxWithMeters.submit(get, TIMEOUT).get();
  }

  @Benchmark
  public byte[] jedisPool() {
    try (Jedis j = jedis.getResource()) {
      return j.get(KEY);
    }
  }

  @Benchmark
  public byte[] dynoPooled() {
    return dynoPooled.get(KEY);
  }

  @Benchmark
  public byte[] dynoMux() {
    return dynoMux.get(KEY);
  }

  @Benchmark
  public byte[] lettuce() {
    return lettuce.get(KEY);
  }

  @Benchmark
  @OperationsPerInvocation(IN_FLIGHT)
  @SuppressWarnings("unchecked")
  public byte[] dynoAsync() {
    CompletableFuture<byte[]>[] replies = new CompletableFuture[IN_FLIGHT];
    for (int i = 0; i < IN_FLIGHT; i++) {
      replies[i] = dynoMuxAsync.get(KEY);
    }
    byte[] last = null;
    for (CompletableFuture<byte[]> r : replies) {
      last = r.join();
    }
    return last;
  }

  @Benchmark
  @OperationsPerInvocation(IN_FLIGHT)
  @SuppressWarnings("unchecked")
  public byte[] lettuceAsync() {
    CompletableFuture<byte[]>[] replies = new CompletableFuture[IN_FLIGHT];
    for (int i = 0; i < IN_FLIGHT; i++) {
      replies[i] = lettuceAsync.get(KEY).toCompletableFuture();
    }
    byte[] last = null;
    for (CompletableFuture<byte[]> r : replies) {
      last = r.join();
    }
    return last;
  }
}
