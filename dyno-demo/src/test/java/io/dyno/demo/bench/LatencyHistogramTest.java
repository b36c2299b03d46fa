package io.dyno.demo.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

  @Test
  void percentilesAreWithinThreePercentAndNeverBelowTheTrueValue() {
    LatencyHistogram h = new LatencyHistogram();
    for (int v = 1; v <= 10_000; v++) {
      h.recordMicros(v);
    }
    assertThat(h.count()).isEqualTo(10_000);
    assertThat(h.percentileMicros(0.50)).isBetween(5_000L, 5_150L);
    assertThat(h.percentileMicros(0.99)).isBetween(9_900L, 10_200L);
    assertThat(h.percentileMicros(1.0)).isBetween(10_000L, 10_300L);
  }

  @Test
  void smallValuesAreExactAndEmptyHistogramReportsZero() {
    LatencyHistogram h = new LatencyHistogram();
    assertThat(h.percentileMicros(0.99)).isZero();
    h.recordMicros(3, 99);
    h.recordMicros(20);
    assertThat(h.percentileMicros(0.5)).isEqualTo(3);
    assertThat(h.percentileMicros(1.0)).isEqualTo(20);
  }

  @Test
  void mergingAddsCounts() {
    LatencyHistogram a = new LatencyHistogram();
    LatencyHistogram b = new LatencyHistogram();
    a.recordMicros(100);
    b.recordMicros(100_000, 3);
    a.add(b);
    assertThat(a.count()).isEqualTo(4);
    assertThat(a.percentileMicros(0.5)).isGreaterThanOrEqualTo(100_000);
  }

  @Test
  void hugeValuesAreClampedNotLost() {
    LatencyHistogram h = new LatencyHistogram();
    h.recordNanos(Long.MAX_VALUE);
    assertThat(h.count()).isEqualTo(1);
    assertThat(h.percentileMicros(1.0)).isPositive();
  }
}
