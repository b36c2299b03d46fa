package io.dyno.core.metrics.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.histogram.PercentileTimer;
import io.dyno.core.Host;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BorrowDelayTest {

  /** Regression: with Spectator's default 10 ms floor every healthy borrow fell in one bucket. */
  @Test
  void percentilesResolveMicrosecondBorrowsInsteadOfClampingThemToTenMilliseconds() {
    DefaultRegistry registry = new DefaultRegistry();
    Host host = Host.builder("127.0.0.1", 8102).rack("rack1").datacenter("dc1").build();
    AtomicLong immediate = new AtomicLong();
    BorrowDelay delay = new Meters(registry, "app").borrowDelay(host, immediate::get);

    for (int i = 0; i < 98; i++) {
      delay.waited(TimeUnit.MICROSECONDS.toNanos(50));
    }
    delay.waited(TimeUnit.MILLISECONDS.toNanos(2));
    delay.waited(TimeUnit.MILLISECONDS.toNanos(2));
    immediate.set(100);
    assertThat(delay.publish()).isEqualTo(100);

    PercentileTimer timer = (PercentileTimer) delay.timer();
    assertThat(timer.count()).isEqualTo(200);
    double p50 = timer.percentile(50);
    double p99 = timer.percentile(99.5);
    assertThat(p50).as("p50 in seconds: immediate and 50 µs borrows").isLessThan(100e-6);
    assertThat(p99).as("p99.5 in seconds: the 2 ms borrows").isBetween(1e-3, 3e-3);
  }
}
