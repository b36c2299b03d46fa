package io.dyno.loadgen.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.loadgen.BenchMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * {@code virtualThreads=N}: N blocking callers on virtual threads running the mixed threads' loop,
 * refused by name on a JVM older than 21 (the build's tests run on 17: there the refusal is what is
 * checked, on 21+ the run); and the bound on a run's end for every kind of caller: callers still
 * blocked in the driver after the grace period are counted and reported, not waited for.
 */
class VirtualThreadCallersTest {

  /** A driver that answers at once, or (stalled) never until closed; it notes which threads called it. */
  static final class FakeDriver implements Driver {
    final CountDownLatch release = new CountDownLatch(1);
    final Set<String> callerThreads = ConcurrentHashMap.newKeySet();
    final boolean stalled;

    FakeDriver(boolean stalled) {
      this.stalled = stalled;
    }

    @Override
    public String name() {
      return stalled ? "stalled" : "fake";
    }

    private String call() throws InterruptedException {
      callerThreads.add(Thread.currentThread().toString());
      if (stalled) release.await();
      return "v";
    }

    @Override
    public String get(String key) throws Exception {
      return call();
    }

    @Override
    public void set(String key, String value) throws Exception {
      call();
    }

    @Override
    public void pipeline(List<Op> ops) throws Exception {
      call();
    }

    @Override
    public void close() {
      release.countDown();
    }
  }

  @Test
  void theSettingIsValidatedAndNamedAsTheCallerKind() {
    BenchConfig c =
        BenchConfig.builder().set("virtualThreads", "1k").readers(0).writers(0).build();
    assertThat(c.virtualThreads).isEqualTo(1000);
    assertThat(c.asMap()).containsEntry("virtualThreads", "1000");
    assertThat(Callers.describe(c))
        .isEqualTo("1000 virtual threads, each a blocking call at a time, 80% GET / 20% SET"
            + " (readers, writers and threads not started)");
    assertThat(Callers.describe(BenchConfig.builder().build()))
        .isEqualTo(
            "platform threads: 4 readers, 1 writers, 0 mixed (80% GET), each a blocking call at a time");
    assertThatThrownBy(() -> BenchConfig.builder().virtualThreads(10).async(8).build())
        .hasMessageContaining("setting virtualThreads")
        .hasMessageContaining("async");
    assertThatThrownBy(() -> BenchConfig.builder().virtualThreads(-1).build())
        .hasMessageContaining("setting virtualThreads");
  }

  @Test
  void callersStillBlockedAfterTheGracePeriodAreCountedNotWaitedFor() throws Exception {
    BenchConfig cfg = BenchConfig.builder()
        .readers(0)
        .writers(0)
        .threads(3)
        .backfill(false)
        .keys(10)
        .duration(Duration.ofMillis(200))
        .build();
    try (FakeDriver d = new FakeDriver(true)) {
      Bench bench = new Bench(cfg, d, line -> {}).grace(Duration.ofMillis(300));
      long t0 = System.nanoTime();
      BenchResult r = bench.run();
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
      assertThat(r.callerCount()).isEqualTo(3);
      assertThat(r.blockedCallers()).isEqualTo(3);
      assertThat(r.summaryText())
          .contains("callers: platform threads: 0 readers, 0 writers, 3 mixed")
          .contains("stalled: 3 of 3 callers still blocked 0.3 s after the end");
      assertThat(bench.events()).anyMatch(e -> e.kind().equals("stall"));
      assertThat(JsonOut.write(r)).contains("\"blockedCallers\":3");
    }
  }

  @Test
  void virtualThreadCallersRunTheBlockingLoopOrAreRefusedNamingTheRunningJava() throws Exception {
    BenchConfig cfg = BenchConfig.builder()
        .virtualThreads(50)
        .readPercent(50)
        .backfill(false)
        .keys(10)
        .duration(Duration.ofMillis(300))
        .build();
    try (FakeDriver d = new FakeDriver(false)) {
      if (Runtime.version().feature() < 21) {
        assertThatThrownBy(() -> new Bench(cfg, d, line -> {}))
            .hasMessageContaining("--virtual-threads")
            .hasMessageContaining("Java 21")
            .hasMessageContaining("this is Java " + Runtime.version());
        // The command line refuses it before starting a cluster, as a bad command line.
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int code = BenchMain.run(
            new String[] {"--target", "companion", "--virtual-threads", "5"},
            new PrintStream(buf, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(2);
        assertThat(buf.toString(StandardCharsets.UTF_8))
            .startsWith("bench: --virtual-threads 5: virtual threads need " + "Java 21 or later")
            .contains("this is Java " + Runtime.version())
            .doesNotContain("target:");
        return;
      }
      Bench bench = new Bench(cfg, d, line -> {});
      assertThatThrownBy(() -> bench.knobs().set("threads", "5"))
          .hasMessageContaining("50 virtual threads");
      BenchResult r = bench.run();
      assertThat(r.callerCount()).isEqualTo(50);
      assertThat(r.blockedCallers()).isZero();
      assertThat(r.stall()).isEmpty();
      assertThat(r.callers()).startsWith("50 virtual threads");
      assertThat(r.reads()).isPositive();
      assertThat(r.writes()).isPositive();
      assertThat(d.callerThreads).isNotEmpty().allMatch(t -> t.startsWith("VirtualThread["));
    }
  }
}
