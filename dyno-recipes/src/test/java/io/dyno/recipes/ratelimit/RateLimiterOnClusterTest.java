package io.dyno.recipes.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.CompanionCluster;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.recipes.testing.Clusters;
import io.dyno.recipes.testing.Threads;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Several application instances (each its own DynoJedisClient) sharing one limit per key, on a
 * 6-node companion cluster with redis-server backends.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RateLimiterOnClusterTest {
  private static final int INSTANCES = 3;
  private CompanionCluster cluster;
  private final List<DynoJedisClient> clients = new ArrayList<>();

  @BeforeAll
  void start() {
    cluster = Clusters.sixNodes();
    for (int i = 0; i < INSTANCES; i++) {
      DynoJedisClient c = Clusters.client(cluster, "limiter-" + i, "rack1");
      RateLimiter.builder(c)
          .rate(1, Duration.ofSeconds(1))
          .build()
          .tryAcquire("warm-up"); // connections, classes
      clients.add(c);
    }
  }

  @AfterAll
  void stop() {
    clients.forEach(DynoJedisClient::close);
    if (cluster != null) {
      cluster.close();
    }
  }

  @BeforeEach
  void clean() {
    cluster.flushAll();
  }

  /** A wall clock shared by the instances, moved by the test. */
  private static final class FakeClock implements InstantSource {
    final AtomicLong millis = new AtomicLong(1_700_000_000_000L);

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public long millis() {
      return millis.get();
    }
  }

  private List<RateLimiter> limiters(
      long permits, Duration period, long burst, InstantSource clock) {
    List<RateLimiter> list = new ArrayList<>();
    for (DynoJedisClient c : clients) {
      list.add(
          RateLimiter.builder(c).rate(permits, period).burst(burst).clock(clock).build());
    }
    return list;
  }

  /** Every instance runs {@code threads} threads calling {@code attempt} {@code tries} times; returns the admitted count. */
  private static long hammer(
      List<RateLimiter> limiters,
      int threads,
      BooleanSupplierFactory attempt,
      BooleanSupplier keepGoing)
      throws InterruptedException {
    AtomicLong admitted = new AtomicLong();
    List<Runnable> bodies = new ArrayList<>();
    for (RateLimiter l : limiters) {
      for (int t = 0; t < threads; t++) {
        bodies.add(() -> {
          BooleanSupplier a = attempt.of(l);
          while (keepGoing.getAsBoolean()) {
            if (a.getAsBoolean()) {
              admitted.incrementAndGet();
            }
          }
        });
      }
    }
    Threads.runTogether(bodies, Duration.ofSeconds(60));
    return admitted.get();
  }

  @FunctionalInterface
  interface BooleanSupplierFactory {
    BooleanSupplier of(RateLimiter limiter);
  }

  private static BooleanSupplier tries(int n) {
    AtomicLong left = new AtomicLong(n);
    return () -> left.getAndDecrement() > 0;
  }

  @Test
  void instancesTogetherAdmitExactlyTheBurstAtOneInstantThenExactlyTheRefill() throws Exception {
    FakeClock clock = new FakeClock();
    List<RateLimiter> limiters = limiters(50, Duration.ofSeconds(1), 50, clock);
    long first = hammer(limiters, 4, l -> () -> l.tryAcquire("api:user:7"), tries(600));
    assertThat(first).as("admitted at one instant by %d instances", INSTANCES).isEqualTo(50);
    clock.millis.addAndGet(200); // 200 ms at 50/s refills exactly 10
    long second = hammer(limiters, 4, l -> () -> l.tryAcquire("api:user:7"), tries(300));
    assertThat(second).isEqualTo(10);
    clock.millis.addAndGet(60_000); // a long quiet spell refills no more than the burst
    long third = hammer(limiters, 4, l -> () -> l.tryAcquire("api:user:7"), tries(300));
    assertThat(third).isEqualTo(50);
    // Other keys have their own buckets.
    assertThat(limiters.get(0).tryAcquire("api:user:8")).isTrue();
  }

  @Test
  void instancesHammeringForASecondAdmitAtMostTheRatePlusOneBurst() throws Exception {
    long permits = 100;
    long burst = 20;
    List<RateLimiter> limiters =
        limiters(permits, Duration.ofSeconds(1), burst, InstantSource.system());
    long t0 = System.nanoTime();
    long deadline = t0 + Duration.ofMillis(1500).toNanos();
    AtomicLong attempts = new AtomicLong();
    long admitted = hammer(
        limiters,
        2,
        l -> () -> {
          attempts.incrementAndGet();
          return l.tryAcquire("search");
        },
        () -> System.nanoTime() < deadline);
    double seconds = (System.nanoTime() - t0) / 1e9;
    long bound = burst + (long) Math.ceil(permits * seconds);
    System.out.printf(
        "rate limiter: %d admitted of %d attempts in %.2f s by %d instances (bound %d = burst %d + %d/s)%n",
        admitted, attempts.get(), seconds, INSTANCES, bound, burst, permits);
    assertThat(admitted).isLessThanOrEqualTo(bound);
    assertThat(admitted)
        .as("the limiter admits, too")
        .isGreaterThanOrEqualTo(Math.min(attempts.get(), burst));
  }

  @Test
  void aCallerWhoseClockIsBehindRefillsNothingAndNeverMovesTheBucketBack() {
    FakeClock ahead = new FakeClock();
    FakeClock behind = new FakeClock();
    behind.millis.addAndGet(-5_000);
    RateLimiter a = RateLimiter.builder(clients.get(0))
        .rate(10, Duration.ofSeconds(1))
        .burst(10)
        .clock(ahead)
        .build();
    RateLimiter b = RateLimiter.builder(clients.get(1))
        .rate(10, Duration.ofSeconds(1))
        .burst(10)
        .clock(behind)
        .build();
    assertThat(a.tryAcquire("k", 10).allowed()).isTrue();
    behind.millis.addAndGet(4_000); // still 1 s behind the bucket's time
    RateLimiter.Decision d = b.tryAcquire("k", 1);
    assertThat(d.allowed()).isFalse();
    assertThat(d.remaining()).isZero();
    assertThat(d.retryAfter()).isEqualTo(Duration.ofMillis(100));
    ahead.millis.addAndGet(100);
    assertThat(a.tryAcquire("k")).isTrue();
    assertThat(a.tryAcquire("k")).isFalse();
  }

  @Test
  void badRequestsAreRefusedNamingKeyAndSetting() {
    RateLimiter l =
        RateLimiter.builder(clients.get(0)).rate(5, Duration.ofSeconds(1)).build();
    assertThatThrownBy(() -> l.tryAcquire("upload", 6))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'upload'")
        .hasMessageContaining("1..5");
    assertThatThrownBy(() -> RateLimiter.builder(clients.get(0)).rate(0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("permits");
    assertThatThrownBy(() -> RateLimiter.builder(clients.get(0)).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("rate(");
  }
}
