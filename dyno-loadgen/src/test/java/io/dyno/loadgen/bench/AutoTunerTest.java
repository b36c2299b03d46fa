package io.dyno.loadgen.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Feeds the tuner synthetic samples (a cluster that holds 4000 ops/s with p99 under 5 ms): no time, no server. */
class AutoTunerTest {

  /** A pretend cluster: delivers what is asked up to its capacity, p99 jumps above it. */
  private static Sample sampleAt(double target, double capacity) {
    double achieved = Math.min(target, capacity);
    long p99 = target <= capacity ? 2_000 : 40_000;
    return new Sample(
        0, 1.0, (long) (achieved * 0.8), (long) (achieved * 0.2), 0, 500, p99, p99, -1, -1, 0, 0);
  }

  @Test
  void raisesUntilTheSlaBreaksThenBacksOffToTheLastGoodRate() throws Exception {
    BenchConfig cfg =
        BenchConfig.builder().readers(0).writers(0).threads(4).readPercent(80).build();
    Bench bench = new Bench(cfg, new NoopDriver(), line -> {});
    List<String> log = new ArrayList<>();
    AutoTuner t = new AutoTuner(1000, 2.0, 3, 5_000, 0.001, log::add).attach(bench);
    double capacity = 4500;
    int guard = 0;
    while (!t.finished() && guard++ < 100) {
      double target = bench.knobs().readRate() + bench.knobs().writeRate();
      feed(bench, sampleAt(target, capacity));
    }
    assertThat(t.finished()).isTrue();
    assertThat(t.steps())
        .extracting(AutoTuner.Step::targetRate)
        .containsExactly(1000.0, 2000.0, 4000.0, 8000.0, 4000.0);
    assertThat(t.steps())
        .extracting(AutoTuner.Step::ok)
        .containsExactly(true, true, true, false, true);
    assertThat(t.steps().get(3).verdict()).contains("SLA");
    assertThat(t.sustainableRate()).isEqualTo(4000.0);
    assertThat(bench.knobs().readRate()).isEqualTo(3200.0);
    assertThat(bench.knobs().writeRate()).isEqualTo(800.0);
  }

  @Test
  void anErrorBudgetBreachCountsAsBroken() {
    BenchConfig cfg = BenchConfig.builder().readers(1).writers(0).build();
    Bench bench = new Bench(cfg, new NoopDriver(), line -> {});
    AutoTuner t = new AutoTuner(1000, 1.5, 2, 5_000, 0.001, line -> {}).attach(bench);
    feed(bench, new Sample(0, 1, 1000, 0, 0, 100, 200, 300, -1, -1, 0, 0));
    feed(bench, new Sample(0, 1, 990, 0, 10, 100, 200, 300, -1, -1, 0, 0));
    assertThat(t.steps().get(0).ok()).isFalse();
    assertThat(t.steps().get(0).verdict()).contains("errors");
  }

  private static void feed(Bench bench, Sample s) {
    bench.emitForTest(s);
  }

  static final class NoopDriver implements Driver {
    @Override
    public String name() {
      return "noop";
    }

    @Override
    public String get(String key) {
      return null;
    }

    @Override
    public void set(String key, String value) {}

    @Override
    public void pipeline(List<Op> ops) {}

    @Override
    public void close() {}
  }
}
