package io.dyno.loadgen.drivers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.dyno.companion.Backend;
import io.dyno.core.ConsistencyLevel;
import io.dyno.loadgen.Comparison;
import io.dyno.loadgen.bench.Bench;
import io.dyno.loadgen.bench.BenchConfig;
import io.dyno.loadgen.bench.BenchResult;
import io.dyno.loadgen.bench.Driver;
import io.dyno.loadgen.bench.Report;
import io.dyno.loadgen.bench.TracingMode;
import io.dyno.loadgen.target.EmbeddedTarget;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code tracing=...}: the Dyno drivers run with dyno-opentelemetry's listener over the OpenTelemetry
 * SDK, the spans counted and dropped; the run's report says which mode ran and how many spans ended.
 */
class TracedRunTest {
  private static EmbeddedTarget target;

  @BeforeAll
  static void startCluster() {
    target = EmbeddedTarget.start(1, 2, Backend.MEMORY);
  }

  @AfterAll
  static void stopCluster() {
    target.close();
  }

  private static BenchConfig config(String tracing, int async) {
    return BenchConfig.builder()
        .threads(2)
        .readers(0)
        .writers(0)
        .keys(200)
        .valueSize(32)
        .async(async)
        .duration(Duration.ofMillis(500))
        .set("tracing", tracing)
        .build();
  }

  /** One short run; returns the result, and the driver (closed) for its span counts. */
  private static BenchResult run(String driver, BenchConfig cfg, TracedDriver[] traced)
      throws Exception {
    try (Driver d = Drivers.create(
        driver,
        target,
        ConsistencyLevel.DC_ONE,
        4,
        Duration.ofSeconds(2),
        DynoDriver.Options.of(cfg))) {
      assertThat(d).isInstanceOf(TracedDriver.class);
      traced[0] = (TracedDriver) d;
      return new Bench(cfg, d, line -> {}).warmup(Duration.ofMillis(100)).run();
    }
  }

  @Test
  void aSampledRunEndsOneRootSpanPerCallAndItsReportCarriesTheMode() throws Exception {
    for (String driver : new String[] {"dyno", "dyno-pooled"}) {
      TracedDriver[] traced = new TracedDriver[1];
      BenchResult r = run(driver, config("sampled", 0), traced);

      assertThat(r.errors()).as(driver).isZero();
      assertThat(r.ops()).as(driver).isPositive();
      // Backfill and warm-up calls are traced too: at least one span per measured operation.
      assertThat(traced[0].tracing().dynoSpans()).as(driver).isGreaterThanOrEqualTo(r.ops());
      assertThat(traced[0].tracing().dynoSpansWithParent())
          .as(driver + ": no application span around the calls")
          .isZero();
      assertThat(r.config()).containsEntry("tracing", "sampled");
      assertThat(r.driverSummary().get("tracing"))
          .startsWith("sampled: " + traced[0].tracing().dynoSpans() + " Dyno spans");

      JsonObject run = JsonParser.parseString(new Report("traced").add(r).toJson())
          .getAsJsonObject()
          .getAsJsonArray("runs")
          .get(0)
          .getAsJsonObject();
      assertThat(run.getAsJsonObject("config").get("tracing").getAsString()).isEqualTo("sampled");
      assertThat(run.getAsJsonObject("driverSummary").get("tracing").getAsString())
          .contains("Dyno spans ended sampled");
    }
  }

  @Test
  void asynchronousCallsAreTracedToo() throws Exception {
    TracedDriver[] traced = new TracedDriver[1];
    BenchResult r = run("dyno", config("sampled", 32), traced);

    assertThat(r.errors()).isZero();
    assertThat(traced[0].tracing().dynoSpans()).isGreaterThanOrEqualTo(r.ops()).isPositive();
  }

  @Test
  void aDroppedRunInstallsTheListenerButEndsNoSampledSpan() throws Exception {
    TracedDriver[] traced = new TracedDriver[1];
    BenchResult r = run("dyno", config("dropped", 0), traced);

    assertThat(r.ops()).isPositive();
    assertThat(traced[0].tracing().dynoSpans()).isZero();
    assertThat(r.config()).containsEntry("tracing", "dropped");
    assertThat(r.driverSummary().get("tracing"))
        .startsWith("dropped: 0 Dyno spans")
        .contains("always-off");
  }

  @Test
  void aNestedRunMakesEachCallTheChildOfAnApplicationSpan() throws Exception {
    TracedDriver[] traced = new TracedDriver[1];
    BenchResult r = run("dyno", config("nested", 0), traced);

    BenchTracing t = traced[0].tracing();
    assertThat(t.applicationSpans()).isGreaterThanOrEqualTo(r.ops());
    // Backfill pipelines go through the driver too: every Dyno span has an application span as
    // parent.
    assertThat(t.dynoSpansWithParent()).isGreaterThanOrEqualTo(r.ops()).isEqualTo(t.dynoSpans());
  }

  @Test
  void aComparisonOfTheDriverWithAndWithoutTracingShowsTheOverhead() throws Exception {
    BenchConfig cfg = BenchConfig.builder()
        .threads(2)
        .readers(0)
        .writers(0)
        .keys(200)
        .valueSize(32)
        .duration(Duration.ofMillis(500))
        .build();
    Comparison c = new Comparison(target, cfg, 4, line -> {}).warmup(Duration.ofMillis(100));
    c.run(List.of("dyno", "dyno:tracing=sampled"));

    assertThat(c.results())
        .extracting(res -> res.config().get("tracing"))
        .containsExactly("off", "sampled");
    Comparison.Row plain = c.rows().get(0);
    Comparison.Row traced = c.rows().get(1);
    assertThat(plain.note()).isEmpty();
    assertThat(traced.ratioToPlainSameDriver())
        .isEqualTo(c.results().get(1).opsPerSec() / c.results().get(0).opsPerSec());
    assertThat(traced.note()).startsWith("tracing sampled: ").contains("ops/s than dyno untraced");
    assertThat(c.table()).contains("tracing sampled: ");
  }

  @Test
  void anUnknownModeOrAPlainClientIsRefusedByName() {
    assertThatThrownBy(() -> BenchConfig.builder().set("tracing", "on"))
        .hasMessage("setting tracing: \"on\" is not one of off, sampled, dropped, nested");
    for (String plain : new String[] {"jedis-pools", "lettuce"}) {
      assertThatThrownBy(() -> Drivers.create(
              plain,
              target,
              ConsistencyLevel.DC_ONE,
              2,
              Duration.ofSeconds(2),
              new DynoDriver.Options("off", null, 0, -1, 0, TracingMode.SAMPLED)))
          .hasMessageContaining(plain)
          .hasMessageContaining("setting tracing");
    }
  }
}
