package io.dyno.loadgen.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.Backend;
import io.dyno.core.ConsistencyLevel;
import io.dyno.loadgen.drivers.Drivers;
import io.dyno.loadgen.drivers.DynoDriver;
import io.dyno.loadgen.target.EmbeddedTarget;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@code async=N}: a few load threads keep many requests in flight through the driver's
 * asynchronous API, for Dyno's multiplexed transport and Lettuce alike; the client settings a
 * variant may give Dyno (hedge, deadline, muxConnections, muxWrites) and the errors when they do not apply.
 */
class AsyncModeTest {

  @Test
  void twoThreadsKeepSixtyFourRequestsInFlightThroughDynosAsynchronousApi() throws Exception {
    try (EmbeddedTarget target = EmbeddedTarget.start(2, 1, Backend.MEMORY)) {
      BenchConfig cfg = BenchConfig.builder()
          .threads(2)
          .readers(0)
          .writers(0)
          .keys(500)
          .valueSize(64)
          .async(64)
          .hedge("after:50")
          .deadline(Duration.ofSeconds(1))
          .muxConnections(1)
          .muxWrites(2)
          .duration(Duration.ofSeconds(2))
          .build();
      for (String name : new String[] {"dyno", "lettuce"}) {
        DynoDriver.Options options = name.equals("lettuce")
            ? new DynoDriver.Options("off", null, 0, -1, 1)
            : DynoDriver.Options.of(cfg);
        try (Driver d = Drivers.create(
            name, target, ConsistencyLevel.DC_ONE, 8, Duration.ofSeconds(2), options)) {
          Bench bench = new Bench(cfg, d, line -> {}).warmup(Duration.ofMillis(300));
          AtomicInteger most = new AtomicInteger();
          AtomicBoolean done = new AtomicBoolean();
          Thread probe = new Thread(() -> {
            while (!done.get()) {
              most.accumulateAndGet(bench.asyncInFlight(), Math::max);
              Thread.onSpinWait();
            }
          });
          probe.setDaemon(true);
          probe.start();
          BenchResult r;
          try {
            r = bench.run();
          } finally {
            done.set(true);
            probe.join();
          }
          assertThat(r.errors()).as(name).isZero();
          assertThat(r.reads() + r.writes()).as(name).isPositive();
          assertThat(most.get())
              .as(name + ": requests in flight at once, with 2 threads")
              .isGreaterThan(2);
        }
      }
    }
  }

  @Test
  void aDriverWithoutAnAsynchronousApiOrWithoutDynosSettingsIsNamed() throws Exception {
    try (EmbeddedTarget target = EmbeddedTarget.start(1, 1, Backend.MEMORY)) {
      BenchConfig cfg = BenchConfig.builder()
          .threads(1)
          .readers(0)
          .writers(0)
          .keys(10)
          .async(8)
          .duration(Duration.ofMillis(200))
          .build();
      try (Driver d = Drivers.create(
          "jedis-pools", target, ConsistencyLevel.DC_ONE, 2, Duration.ofSeconds(2))) {
        assertThatThrownBy(() -> new Bench(cfg, d, line -> {}).run())
            .hasMessageContaining("setting async")
            .hasMessageContaining("jedis-pools");
      }
      assertThatThrownBy(() -> Drivers.create(
              "jedis-pools",
              target,
              ConsistencyLevel.DC_ONE,
              2,
              Duration.ofSeconds(2),
              new DynoDriver.Options("after:5", null, 0, -1, 0)))
          .hasMessageContaining("jedis-pools")
          .hasMessageContaining("hedge");
      assertThatThrownBy(() -> Drivers.create(
              "dyno-pooled",
              target,
              ConsistencyLevel.DC_ONE,
              2,
              Duration.ofSeconds(2),
              new DynoDriver.Options("off", null, 1, -1, 0)))
          .hasMessageContaining("muxConnections");
      assertThatThrownBy(() -> Drivers.create(
              "lettuce",
              target,
              ConsistencyLevel.DC_ONE,
              2,
              Duration.ofSeconds(2),
              new DynoDriver.Options("off", null, 0, 0, 0)))
          .hasMessageContaining("lettuce")
          .hasMessageContaining("muxWrites");
      assertThatThrownBy(() -> Drivers.create(
              "dyno",
              target,
              ConsistencyLevel.DC_ONE,
              2,
              Duration.ofSeconds(2),
              new DynoDriver.Options("off", null, 0, -1, 2)))
          .hasMessageContaining("dyno")
          .hasMessageContaining("connections");
    }
    assertThatThrownBy(() -> BenchConfig.builder().set("hedge", "sometimes").build())
        .hasMessageContaining("setting hedge")
        .hasMessageContaining("after:<ms>");
    assertThatThrownBy(() -> BenchConfig.builder().set("muxWrites", "2000").build())
        .hasMessageContaining("setting muxWrites")
        .hasMessageContaining("0 (no bound) .. 1024");
    assertThat(BenchConfig.builder().set("muxWrites", "0").build().muxWrites).isZero();
    assertThatThrownBy(() -> BenchConfig.builder().async(8).pipeline(3, 10).build())
        .hasMessageContaining("setting async")
        .hasMessageContaining("pipeline");
  }
}
