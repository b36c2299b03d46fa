package io.dyno.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.DeadlineExceededException;
import io.dyno.core.Host;
import io.dyno.core.PoolTimeoutException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.engine.internal.DynoEngine;
import io.dyno.core.exec.internal.Engine;
import io.dyno.core.pool.internal.NodePool;
import io.dyno.testsupport.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** The engine against real redis-server processes over real sockets (one process per "rack"). */
class RedisIntegrationTest {
  static final int KEYS = 200;

  static Host host(String rack, RedisServer s) {
    return TestTopology.host(rack, s.port());
  }

  static void seed(RedisServer s) throws Exception {
    try (RespConnection c = new RespConnection(
        TestTopology.host("seed", s.port()),
        Duration.ofSeconds(1),
        Duration.ofSeconds(1),
        new AtomicInteger())) {
      for (int i = 0; i < KEYS; i++) {
        c.command("SET", "key:" + i, "value-" + i);
      }
      c.command("LPUSH", "a-list", "x");
    }
  }

  static String get(DynoEngine<RespConnection> engine, String key, CallOptions options) {
    return engine.execute(
        engine.call("GET").key(key).idempotent(true).options(options).build(),
        c -> (String) c.command("GET", key));
  }

  static void await(String what, long timeoutMs, BooleanSupplier condition) {
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("timed out waiting for " + what);
      }
      LockSupport.parkNanos(2_000_000);
    }
  }

  @Test
  void aNodeKilledUnderLoadLosesNoReadsWithRetriesOn() throws Exception {
    try (RedisServer s1 = RedisServer.start();
        RedisServer s2 = RedisServer.start();
        RedisServer s3 = RedisServer.start()) {
      for (RedisServer s : List.of(s1, s2, s3)) {
        seed(s);
      }
      TestTopology topology = TestTopology.builder("rack1")
          .node(host("rack1", s1), 0)
          .node(host("rack2", s2), 0)
          .node(host("rack3", s3), 0)
          .build();
      DynoConfig config = DynoConfig.builder()
          .applicationName("killtest")
          .retryPolicy(RetryPolicy.retryNTimes(2))
          .socketTimeout(Duration.ofMillis(1000))
          .connectTimeout(Duration.ofMillis(500))
          .build();
      try (DynoEngine<RespConnection> engine = DynoEngine.builder(new RespConnection.Factory())
          .config(config)
          .topology(() -> topology)
          .registerMBean(false)
          .build()) {
        AtomicLong ok = new AtomicLong();
        AtomicLong okAfterKill = new AtomicLong();
        AtomicBoolean killed = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        Thread[] threads = new Thread[8];
        for (int t = 0; t < threads.length; t++) {
          threads[t] = new Thread(() -> {
            while (!stop.get()) {
              int i = ThreadLocalRandom.current().nextInt(KEYS);
              try {
                assertThat(get(engine, "key:" + i, CallOptions.defaults())).isEqualTo("value-" + i);
                ok.incrementAndGet();
                if (killed.get()) {
                  okAfterKill.incrementAndGet();
                }
              } catch (Throwable e) {
                failures.add(e);
              }
            }
          });
          threads[t].start();
        }
        try {
          await("reads before the kill", 10_000, () -> ok.get() >= 1000);
          s1.kill();
          killed.set(true);
          await(
              "reads after the kill",
              20_000,
              () -> okAfterKill.get() >= 3000 || !failures.isEmpty());
        } finally {
          stop.set(true);
          for (Thread t : threads) {
            t.join(5000);
          }
        }
        assertThat(failures).isEmpty();
        assertThat(okAfterKill.get()).isGreaterThanOrEqualTo(3000);
      }
    }
  }

  @Test
  void aHungNodeGivesCallersATimeoutWithinTheirDeadlineAndTheyFailOver() throws Exception {
    try (RedisServer s1 = RedisServer.start();
        RedisServer s2 = RedisServer.start()) {
      seed(s1);
      seed(s2);
      Host a = host("rack1", s1);
      TestTopology both =
          TestTopology.builder("rack1").node(a, 0).node(host("rack2", s2), 0).build();
      // The socket timeout (5 s) is far beyond the deadline (800 ms): only the per-run cap can keep
      // calls in time.
      DynoConfig config = DynoConfig.builder()
          .applicationName("hungtest")
          .retryPolicy(RetryPolicy.retryNTimes(1))
          .socketTimeout(Duration.ofSeconds(5))
          .build();
      Duration deadline = Duration.ofMillis(800);
      Duration bound = deadline.plusMillis(300);
      CallOptions opts = CallOptions.defaults().withDeadline(deadline);
      RespConnection.Factory factory = new RespConnection.Factory();
      try (DynoEngine<RespConnection> engine = DynoEngine.builder(factory)
          .config(config)
          .topology(() -> both)
          .registerMBean(false)
          .build()) {
        assertThat(get(engine, "key:1", CallOptions.defaults())).isEqualTo("value-1");
        s1.pause();
        long slowest = 0;
        for (int i = 0; i < 10; i++) {
          long start = System.nanoTime();
          assertThat(get(engine, "key:" + i, opts)).isEqualTo("value-" + i); // from rack2
          slowest = Math.max(slowest, System.nanoTime() - start);
        }
        System.out.printf(
            "hung node, 2 racks: slowest of 10 calls %d ms (deadline %d ms)%n",
            TimeUnit.NANOSECONDS.toMillis(slowest), deadline.toMillis());
        assertThat(Duration.ofNanos(slowest)).isLessThanOrEqualTo(bound);
        // every connection that timed out on the hung node was closed, none went back to its pool
        NodePool<RespConnection> hungPool = ((Engine<RespConnection>) engine).poolOf(a);
        assertThat(hungPool.active()).isZero();
        assertThat(factory.closed.get()).isGreaterThanOrEqualTo(1);

        // with nowhere to fail over to, the caller gets DeadlineExceeded within its deadline
        TestTopology onlyA = TestTopology.builder("rack1").node(a, 0).build();
        try (DynoEngine<RespConnection> alone = DynoEngine.builder(new RespConnection.Factory())
            .config(config.toBuilder().failOnStartupIfNoHosts(false).build())
            .topology(() -> onlyA)
            .registerMBean(false)
            .build()) {
          long start = System.nanoTime();
          assertThatThrownBy(() -> get(alone, "key:1", opts))
              .isInstanceOf(DeadlineExceededException.class)
              .hasMessageContaining("deadline of 800 ms")
              .hasMessageContaining(a.id());
          long took = System.nanoTime() - start;
          System.out.printf(
              "hung node, no replica: DeadlineExceeded after %d ms (deadline %d ms)%n",
              TimeUnit.NANOSECONDS.toMillis(took), deadline.toMillis());
          assertThat(Duration.ofNanos(took)).isLessThanOrEqualTo(bound);
        }
        s1.resume();
      }
    }
  }

  @Test
  void twoHundredThreadsOnAPoolOfEightAreServedOrGetAClearPoolTimeoutAndNothingLeaks()
      throws Exception {
    try (RedisServer s1 = RedisServer.start()) {
      seed(s1);
      Host a = host("rack1", s1);
      TestTopology topology = TestTopology.builder("rack1").node(a, 0).build();
      long boundMs = 1000;
      DynoConfig config = DynoConfig.builder()
          .applicationName("burst")
          .maxConnsPerHost(8)
          .maxTimeoutWhenExhausted(Duration.ofMillis(boundMs))
          .build();
      RespConnection.Factory factory = new RespConnection.Factory();
      try (DynoEngine<RespConnection> engine = DynoEngine.builder(factory)
          .config(config)
          .topology(() -> topology)
          .registerMBean(false)
          .build()) {
        AtomicInteger served = new AtomicInteger();
        Queue<PoolTimeoutException> timeouts = new ConcurrentLinkedQueue<>();
        Queue<Throwable> other = new ConcurrentLinkedQueue<>();
        AtomicLong slowestTimeoutNanos = new AtomicLong();
        CountDownLatch go = new CountDownLatch(1);
        Thread[] threads = new Thread[200];
        for (int t = 0; t < threads.length; t++) {
          threads[t] = new Thread(() -> {
            try {
              go.await();
            } catch (InterruptedException e) {
              return;
            }
            for (int n = 0; n < 25; n++) {
              int i = ThreadLocalRandom.current().nextInt(KEYS);
              long start = System.nanoTime();
              try {
                if (("value-" + i).equals(get(engine, "key:" + i, CallOptions.defaults()))) {
                  served.incrementAndGet();
                }
              } catch (PoolTimeoutException e) {
                timeouts.add(e);
                slowestTimeoutNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
              } catch (Throwable e) {
                other.add(e);
              }
            }
          });
          threads[t].start();
        }
        go.countDown();
        for (Thread t : threads) {
          t.join(60_000);
        }
        assertThat(other).isEmpty();
        assertThat(served.get() + timeouts.size()).isEqualTo(200 * 25);
        assertThat(served.get()).isGreaterThan(0);
        for (PoolTimeoutException e : timeouts) {
          assertThat(e).hasMessageContaining(a.id()).hasMessageContaining("callers waiting");
        }
        assertThat(Duration.ofNanos(slowestTimeoutNanos.get()))
            .isLessThan(Duration.ofMillis(boundMs + 700));

        NodePool<RespConnection> pool = ((Engine<RespConnection>) engine).poolOf(a);
        assertThat(pool.active()).isZero();
        assertThat(pool.waiters()).isZero();
        assertThat(pool.size()).isBetween(1, 8);
        assertThat(pool.idle()).isEqualTo(pool.size());
        assertThat(factory.opened.get() - factory.closed.get()).isEqualTo(pool.size());
        try (RespConnection c = new RespConnection(
            a, Duration.ofSeconds(1), Duration.ofSeconds(1), new AtomicInteger())) {
          String info = (String) c.command("INFO", "clients");
          assertThat(info).contains("connected_clients:" + (pool.size() + 1));
        }
      }
    }
  }

  @Test
  void aThousandWrongTypeRepliesCloseNoConnectionAndLeaveTheNodeHealthy() throws Exception {
    try (RedisServer s1 = RedisServer.start()) {
      seed(s1);
      Host a = host("rack1", s1);
      TestTopology topology = TestTopology.builder("rack1").node(a, 0).build();
      RespConnection.Factory factory = new RespConnection.Factory();
      try (DynoEngine<RespConnection> engine = DynoEngine.builder(factory)
          .config(DynoConfig.builder()
              .applicationName("wrongtype")
              .healthErrorThreshold(3)
              .build())
          .topology(() -> topology)
          .registerMBean(false)
          .build()) {
        for (int i = 0; i < 1000; i++) {
          assertThatThrownBy(() -> get(engine, "a-list", CallOptions.defaults()))
              .isInstanceOf(RespConnection.ErrorReply.class)
              .hasMessageStartingWith("WRONGTYPE");
        }
        Engine<RespConnection> e = (Engine<RespConnection>) engine;
        assertThat(factory.closed.get()).isZero();
        assertThat(e.health().isUp(a)).isTrue();
        assertThat(e.health().score(a)).isZero();
        assertThat(get(engine, "key:7", CallOptions.defaults())).isEqualTo("value-7");
        assertThat(factory.opened.get()).isEqualTo(e.poolOf(a).size());
      }
    }
  }
}
