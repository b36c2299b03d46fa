package io.dyno.e2e.faults;

import static org.awaitility.Awaitility.await;

import io.dyno.companion.containers.ContainerCluster;
import io.dyno.companion.containers.ContainerNode;
import io.dyno.jedis.DynoJedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.core.ConditionTimeoutException;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * Counters stay exact through a fault: N threads INCR one key (owned by the faulted node in the
 * local rack) through one client until stopped, at a fixed rate together ({@link Pace}). Kept: how
 * many INCRs were acknowledged, how many threw (each may or may not have been applied), and every
 * value INCR handed out, so a value handed out twice is seen. {@link #verdict} then holds each rack's Redis to: acknowledged <= value
 * <= acknowledged + threw.
 */
final class CounterCheck {
  private static final long FAILURE_BACKOFF_NANOS = 5_000_000;

  final String name;
  final String key;
  private final DynoJedisClient client;
  private final int threadCount;
  /** INCRs a second for all threads together ({@link Pace}); 0: each thread again at once. */
  private final int rate;

  private final List<Thread> threads = new ArrayList<>();
  private final AtomicLong acknowledged = new AtomicLong();
  private final AtomicLong threw = new AtomicLong();
  private final Set<Long> handedOut = ConcurrentHashMap.newKeySet();
  private final AtomicLong handedOutTwice = new AtomicLong();
  private final Map<String, Long> failures = new ConcurrentHashMap<>();
  private volatile boolean running;

  CounterCheck(String name, DynoJedisClient client, String key, int threads, int rate) {
    this.name = name;
    this.client = client;
    this.key = key;
    this.threadCount = threads;
    this.rate = rate;
  }

  void start() {
    running = true;
    long interval = rate > 0 ? Pace.intervalNanos(rate, threadCount) : 0;
    long start = System.nanoTime();
    for (int t = 0; t < threadCount; t++) {
      Pace pace = rate > 0
          ? new Pace(interval, start + interval * t / threadCount, System::nanoTime)
          : null;
      Thread th = new Thread(() -> loop(pace), "counter-" + name + "-" + t);
      th.setDaemon(true);
      threads.add(th);
      th.start();
    }
  }

  private void loop(Pace pace) {
    while (running) {
      if (pace != null && !pace.awaitSlot(() -> running)) break;
      try {
        long v = client.incr(key);
        acknowledged.incrementAndGet();
        if (!handedOut.add(v)) handedOutTwice.incrementAndGet();
      } catch (RuntimeException e) {
        threw.incrementAndGet();
        String m = e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage());
        failures.merge(m.replaceAll("\\d+", "N"), 1L, Long::sum);
        // Unpaced, an application's back-off: a refused INCR comes back at once, and a loop
        // without one would take the CPU the other clients' load is measured on.
        if (pace == null) LockSupport.parkNanos(FAILURE_BACKOFF_NANOS);
      }
      if (pace != null) pace.advance();
    }
  }

  void stop() throws InterruptedException {
    running = false;
    for (Thread t : threads) {
      t.join(10_000);
      if (t.isAlive()) throw new IllegalStateException(t.getName() + " did not stop in 10 s");
    }
  }

  long acknowledged() {
    return acknowledged.get();
  }

  long threw() {
    return threw.get();
  }

  long handedOutTwice() {
    return handedOutTwice.get();
  }

  Map<String, Long> failures() {
    return new TreeMap<>(failures);
  }

  /** Whether every rack's value is within [acknowledged, acknowledged + threw]. */
  boolean exact(Map<String, Long> valueByRack) {
    long lo = acknowledged(), hi = acknowledged() + threw();
    return valueByRack.values().stream().allMatch(v -> v != null && v >= lo && v <= hi);
  }

  /** One line: what INCR acknowledged, threw, handed out twice, and what each rack holds. */
  String verdict(Map<String, Long> valueByRack) {
    StringBuilder sb = new StringBuilder(String.format(
        "%-11s key %s: %d acknowledged, %d threw, %d values handed out twice; racks hold",
        name, key, acknowledged(), threw(), handedOutTwice()));
    valueByRack.forEach((rack, v) -> sb.append(' ')
        .append(rack)
        .append('=')
        .append(v)
        .append(
            v == null
                ? ""
                : " (" + (v - acknowledged() >= 0 ? "+" : "") + (v - acknowledged()) + ")"));
    return sb.toString();
  }

  /**
   * Each counter's value in each rack, read from the key's owner's redis-server there, once every
   * counter's racks agree or 10 s passed (replication is asynchronous).
   */
  static Map<CounterCheck, Map<String, Long>> settle(
      List<CounterCheck> counters, ContainerCluster cluster) {
    Map<CounterCheck, Map<String, Long>> out = new LinkedHashMap<>();
    try {
      await("counters settled in every rack")
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> {
            boolean settled = true;
            for (CounterCheck c : counters) {
              Map<String, Long> byRack = new TreeMap<>();
              for (String rack : cluster.racks()) {
                byRack.put(rack, redisValue(cluster, rack, c.key));
              }
              out.put(c, byRack);
              settled &= c.exact(byRack) || byRack.values().stream().distinct().count() == 1;
            }
            return settled;
          });
    } catch (ConditionTimeoutException stillApart) {
      // reported and checked by the caller with the values last read
    }
    return out;
  }

  /**
   * The key's value in one rack: only its owner there holds it, so the first found; 0 when no node
   * of the rack holds it, which is what INCR counts from (no INCR acknowledged, none applied).
   */
  private static Long redisValue(ContainerCluster cluster, String rack, String key) {
    for (ContainerNode n : cluster.rack(rack)) {
      try (Jedis j = jedis(n.redisPort())) {
        String v = j.get(key);
        if (v != null) return Long.parseLong(v);
      }
    }
    return 0L;
  }

  private static Jedis jedis(int port) {
    return new Jedis(
        new HostAndPort("127.0.0.1", port),
        DefaultJedisClientConfig.builder()
            .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
            .connectionTimeoutMillis(2_000)
            .socketTimeoutMillis(2_000)
            .build());
  }
}
