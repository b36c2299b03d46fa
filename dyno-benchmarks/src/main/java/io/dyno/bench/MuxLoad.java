package io.dyno.bench;

import io.dyno.jedis.internal.mux.MuxConnection;
import io.dyno.jedis.internal.mux.MuxSettings;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.Protocol;

/**
 * Throughput of 1 KiB GETs against one endpoint (e.g. a real Dynomite node), one closed loop per thread:
 * {@code java -cp dyno-benchmarks/target/benchmarks.jar io.dyno.bench.MuxLoad <port> <seconds> <threads> <mode>...}
 * with modes {@code mux1}, {@code mux2} (MuxConnections shared by all threads) and {@code pool}
 * (JedisPool with one connection per thread). Each mode warms up 2 s, then runs and prints ops/s.
 * Plain RESP2, no handshake, so it works through Dynomite.
 */
public final class MuxLoad {
  private MuxLoad() {}

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    int seconds = Integer.parseInt(args[1]);
    int threads = Integer.parseInt(args[2]);
    DefaultJedisClientConfig plain = DefaultJedisClientConfig.builder()
        .protocol(null)
        .autoNegotiateProtocol(false)
        .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
        .socketTimeoutMillis(5000)
        .build();
    byte[] key = "load:1k".getBytes();
    byte[] value = new byte[1024];
    Arrays.fill(value, (byte) 'v');
    try (Jedis j = new Jedis(new HostAndPort("127.0.0.1", port), plain)) {
      j.set(key, value);
    }
    for (int m = 3; m < args.length; m++) {
      String mode = args[m];
      EventLoopGroup group = MuxConnection.newEventLoopGroup(1, "load-mux");
      List<MuxConnection> muxes = new ArrayList<>();
      JedisPool pool = null;
      Op op;
      CommandArguments get = new CommandArguments(Protocol.Command.GET).add(key);
      long timeout = TimeUnit.SECONDS.toNanos(5);
      if (mode.startsWith("mux")) {
        int n = Integer.parseInt(mode.substring(3));
        for (int i = 0; i < n; i++) {
          muxes.add(MuxConnection.open(
              "node@" + port,
              new InetSocketAddress("127.0.0.1", port),
              group,
              MuxSettings.defaults(),
              null));
        }
        op = t -> ((byte[]) muxes.get(t % muxes.size()).submit(get, timeout).get()).length;
      } else {
        GenericObjectPoolConfig<Jedis> cfg = new GenericObjectPoolConfig<>();
        cfg.setMaxTotal(threads);
        cfg.setMaxIdle(threads);
        JedisPool p = new JedisPool(cfg, new HostAndPort("127.0.0.1", port), plain);
        pool = p;
        op = t -> {
          try (Jedis j = p.getResource()) {
            return j.get(key).length;
          }
        };
      }
      double opsPerSecond = run(op, threads, seconds);
      long commands = muxes.stream().mapToLong(MuxConnection::commandsWritten).sum();
      long flushes = muxes.stream().mapToLong(MuxConnection::flushes).sum();
      System.out.printf(
          "%-6s threads=%d  %,.0f GET/s%s%n",
          mode,
          threads,
          opsPerSecond,
          flushes > 0
              ? String.format("  (%.1f commands per flush)", (double) commands / flushes)
              : "");
      muxes.forEach(MuxConnection::close);
      if (pool != null) {
        pool.close();
      }
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  interface Op {
    int run(int thread) throws Exception;
  }

  private static double run(Op op, int threads, int seconds) throws InterruptedException {
    LongAdder ops = new LongAdder();
    long warmEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    long end = warmEnd + TimeUnit.SECONDS.toNanos(seconds);
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      Thread th = new Thread(() -> {
        try {
          long now;
          while ((now = System.nanoTime()) < end) {
            if (op.run(id) != 1024) {
              throw new IllegalStateException("wrong value length");
            }
            if (now >= warmEnd) {
              ops.increment();
            }
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      th.setDaemon(true);
      th.start();
      ts.add(th);
    }
    for (Thread th : ts) {
      th.join();
    }
    return ops.sum() / (double) seconds;
  }
}
