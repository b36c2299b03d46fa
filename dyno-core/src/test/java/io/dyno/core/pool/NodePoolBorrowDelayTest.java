package io.dyno.core.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Id;
import com.netflix.spectator.api.Statistic;
import com.netflix.spectator.api.Tag;
import com.netflix.spectator.api.Timer;
import com.netflix.spectator.api.histogram.PercentileTimer;
import io.dyno.core.Host;
import io.dyno.core.PoolTimeoutException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.exec.FakeFactory;
import io.dyno.core.exec.TestTopology;
import io.dyno.core.metrics.DynoMetrics;
import io.dyno.core.metrics.internal.BorrowDelay;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.pool.internal.NodePool;
import io.dyno.core.pool.internal.Pooled;
import io.dyno.core.time.Ticker;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** dyno.pool.borrow counts every borrow: immediate ones in batches, waits at once with their time. */
class NodePoolBorrowDelayTest {
  final Host host = TestTopology.host("rack1", 7501);
  final DefaultRegistry registry = new DefaultRegistry();
  final DynoConfig config = DynoConfig.builder()
      .applicationName("b")
      .minConnsPerHost(2)
      .maxConnsPerHost(2)
      .build();
  final NodePool<FakeFactory.Conn> pool =
      FakePools.pool(host, config, Ticker.system(), new Meters(registry, "b"), () -> true);

  Id borrowId() {
    return registry
        .createId(DynoMetrics.POOL_BORROW)
        .withTags("app", "b", "node", host.id(), "rack", "rack1");
  }

  Timer timer() {
    return registry.timer(borrowId());
  }

  /** Samples in the PercentileTimer's bucket counters (the percentiles' source). */
  long bucketSamples() {
    return buckets(registry).values().stream().mapToLong(Long::longValue).sum();
  }

  /** Bucket tag → count of every dyno.pool.borrow percentile counter. */
  static Map<String, Long> buckets(DefaultRegistry r) {
    return r.counters()
        .filter(c -> c.id().name().equals(DynoMetrics.POOL_BORROW))
        .filter(c -> Statistic.percentile.value().equals(tag(c.id(), "statistic")))
        .filter(c -> c.count() > 0)
        .collect(Collectors.toMap(c -> tag(c.id(), "percentile"), c -> (long) c.count()));
  }

  static String tag(Id id, String key) {
    for (Tag t : id.tags()) {
      if (t.key().equals(key)) {
        return t.value();
      }
    }
    return null;
  }

  @AfterEach
  void close() {
    pool.close();
  }

  @Test
  void immediateBorrowsAreCountedAndReachThePercentileTimerAtTheNextMaintenancePass() {
    pool.fill(2);
    for (int i = 0; i < 5000; i++) {
      pool.release(pool.borrow(TimeUnit.SECONDS.toNanos(1)));
    }
    assertThat(timer().count()).isZero(); // counted, not yet published
    pool.maintain();
    assertThat(timer().count()).isEqualTo(5000);
    assertThat(timer().totalTime()).isZero();
    assertThat(bucketSamples()).isEqualTo(5000);
    pool.maintain();
    assertThat(timer().count()).isEqualTo(5000); // published once, not twice

    // the same meters, with the same values, as 5000 records of 0 ns into a Spectator
    // PercentileTimer
    DefaultRegistry reference = new DefaultRegistry();
    PercentileTimer t = PercentileTimer.builder(reference)
        .withId(borrowId())
        .withRange(BorrowDelay.MIN, BorrowDelay.MAX)
        .build();
    for (int i = 0; i < 5000; i++) {
      t.record(0, TimeUnit.NANOSECONDS);
    }
    assertThat(buckets(registry)).isEqualTo(buckets(reference)).hasSize(1);
    assertThat(reference.timer(borrowId()).count()).isEqualTo(timer().count());
  }

  @Test
  void aBorrowThatWaitsIsTimedAndRecordedAtOnceEvenWhenItTimesOut() {
    pool.fill(2);
    Pooled<FakeFactory.Conn> a = pool.borrow(TimeUnit.SECONDS.toNanos(1));
    Pooled<FakeFactory.Conn> b = pool.borrow(TimeUnit.SECONDS.toNanos(1));
    assertThatThrownBy(() -> pool.borrow(TimeUnit.MILLISECONDS.toNanos(30)))
        .isInstanceOf(PoolTimeoutException.class)
        .hasMessageContaining(host.id());
    assertThat(timer().count()).isEqualTo(1);
    assertThat(bucketSamples()).isEqualTo(1);
    assertThat(Duration.ofNanos(timer().totalTime())).isGreaterThanOrEqualTo(Duration.ofMillis(30));
    pool.release(a);
    pool.release(b);
    pool.close(); // closing publishes what was counted: nothing is lost
    assertThat(timer().count()).isEqualTo(3);
  }
}
