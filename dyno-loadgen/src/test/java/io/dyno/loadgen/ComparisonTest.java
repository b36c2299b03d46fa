package io.dyno.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import io.dyno.companion.Backend;
import io.dyno.loadgen.bench.BenchConfig;
import io.dyno.loadgen.bench.BenchResult;
import io.dyno.loadgen.target.EmbeddedTarget;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Comparison method: variants run in interleaved rounds (A, B, then B, A: even rounds reversed),
 * each named as given, with a median and min-max per variant and per-round ratios against plain
 * Jedis pools.
 */
class ComparisonTest {

  @Test
  void variantsRunInInterleavedRoundsUnderTheNamesTheyWereGiven() throws Exception {
    try (EmbeddedTarget target = EmbeddedTarget.start(1, 2, Backend.MEMORY)) {
      BenchConfig cfg = BenchConfig.builder()
          .threads(2)
          .readers(0)
          .writers(0)
          .keys(200)
          .valueSize(32)
          .duration(Duration.ofMillis(600))
          .build();
      Comparison c =
          new Comparison(target, cfg, 4, line -> {}).rounds(2).warmup(Duration.ofMillis(200));
      c.run(List.of("jedis-pools", "dyno:pipeline=3-10"));

      assertThat(c.results())
          .extracting(BenchResult::variant)
          .containsExactly(
              "jedis-pools", "dyno:pipeline=3-10", "dyno:pipeline=3-10", "jedis-pools");
      assertThat(c.results()).extracting(BenchResult::round).containsExactly(1, 1, 2, 2);
      assertThat(c.rows())
          .extracting(Comparison.Row::variant)
          .containsExactly("jedis-pools", "dyno:pipeline=3-10");
      Comparison.Row dyno = c.rows().get(1);
      assertThat(dyno.rounds()).isEqualTo(2);
      assertThat(dyno.minOpsPerSec()).isPositive().isLessThanOrEqualTo(dyno.opsPerSec());
      assertThat(dyno.maxOpsPerSec()).isGreaterThanOrEqualTo(dyno.opsPerSec());
      double r1 = c.results().get(1).opsPerSec() / c.results().get(0).opsPerSec();
      double r2 = c.results().get(2).opsPerSec() / c.results().get(3).opsPerSec();
      assertThat(dyno.ratioToBaseline()).isCloseTo((r1 + r2) / 2, offset(1e-9));
      assertThat(dyno.forwarded()).isEqualTo("0.0 %");
      // The companion runs in this JVM: no server CPU figure, and the table says why instead of a
      // number.
      assertThat(dyno.serverCpuMicrosPerOp()).isNull();
      assertThat(dyno.serverCpuSplit())
          .isEqualTo(
              "n/a (the companion runs inside this JVM: its CPU cannot be told apart from the client's)");
      assertThat(c.table()).contains("server CPU n/a[1]: the companion runs inside this JVM");
      // The client's CPU is measured, the companion's threads taken out.
      assertThat(dyno.clientCpuMicrosPerOp()).isPositive();
      assertThat(c.results()).allMatch(r -> r.clientCpu().available());
      assertThat(c.table()).contains("cli us/op");
    }
  }

  @Test
  void anUnknownDriverInAVariantIsNamed() throws Exception {
    try (EmbeddedTarget target = EmbeddedTarget.start(1, 1, Backend.MEMORY)) {
      Comparison c = new Comparison(target, BenchConfig.builder().build(), 2, line -> {});
      assertThatThrownBy(() -> c.run(List.of("jedis-pools", "dynoo:pipeline=3-10")))
          .hasMessageContaining("dynoo:pipeline=3-10")
          .hasMessageContaining("unknown driver \"dynoo\"");
    }
  }

  @Test
  void medianOfAnEvenNumberOfRoundsIsTheMeanOfTheMiddleTwo() {
    assertThat(Comparison.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
    assertThat(Comparison.median(new double[] {5, 1, 3})).isEqualTo(3);
  }
}
