package io.dyno.loadgen.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;

class KeyChooserTest {

  @Test
  void uniformCoversTheKeySpaceEvenly() {
    KeyChooser c = new KeyChooser(BenchConfig.builder().keys(10).build());
    int[] counts = new int[10];
    for (int i = 0; i < 100_000; i++) counts[(int) c.next()]++;
    assertThat(Arrays.stream(counts).min().getAsInt()).isGreaterThan(9_000);
    assertThat(Arrays.stream(counts).max().getAsInt()).isLessThan(11_000);
  }

  @Test
  void zipfianMakesAFewKeysHotAndStaysInRange() {
    KeyChooser c = new KeyChooser(BenchConfig.builder()
        .keys(100_000)
        .distribution(KeyDistribution.ZIPFIAN)
        .build());
    Map<Long, Integer> counts = new HashMap<>();
    for (int i = 0; i < 200_000; i++) {
      long k = c.next();
      assertThat(k).isBetween(0L, 99_999L);
      counts.merge(k, 1, Integer::sum);
    }
    int hottest = counts.values().stream().max(Integer::compare).orElseThrow();
    // Uniform would give each key ~2 hits; theta 0.99 gives the top key several percent of all.
    assertThat(hottest).isGreaterThan(5_000);
    assertThat(counts.size()).isLessThan(100_000);
  }

  @Test
  void slidingWindowPicksOnlyInsideTheCurrentWindow() {
    KeyChooser c = new KeyChooser(BenchConfig.builder()
        .keys(1_000_000)
        .distribution(KeyDistribution.SLIDING_WINDOW)
        .window(1_000, 0)
        .build());
    for (int i = 0; i < 10_000; i++) {
      assertThat(c.next()).isBetween(0L, 999L);
    }
  }

  @Test
  void zetaTailApproximationIsCloseToTheExactSum() {
    double exact = KeyChooser.zeta(10_000_000, 0.99);
    double approx = KeyChooser.zeta(5_000_000, 0.99)
        + (Math.pow(10_000_000, 0.01) - Math.pow(5_000_000, 0.01)) / 0.01;
    assertThat(approx).isCloseTo(exact, Percentage.withPercentage(0.01));
  }
}
