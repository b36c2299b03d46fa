package io.dyno.core.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Id;
import com.netflix.spectator.api.Meter;
import com.netflix.spectator.api.Tag;
import com.netflix.spectator.api.patterns.PolledMeter;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.engine.internal.DynoEngine;
import io.dyno.core.exec.FakeFactory;
import io.dyno.core.exec.TestTopology;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.testing.ManualScheduler;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class DynoMetricsTest {
  @Test
  void aCallRecordsBorrowDelayLatencyAndPoolGaugesUnderStableNamesWithAppTag() {
    DefaultRegistry registry = new DefaultRegistry();
    Host a = TestTopology.host("rack1", 7401);
    try (DynoEngine<FakeFactory.Conn> engine = DynoEngine.builder(new FakeFactory())
        .config(DynoConfig.builder().applicationName("m").build())
        .topology(() -> TestTopology.builder("rack1").node(a, 0).build())
        .registry(registry)
        .scheduler(new ManualScheduler())
        .ioExecutor(Runnable::run)
        .registerMBean(false)
        .build()) {
      String r =
          engine.execute(engine.call("GET").key("k").idempotent(true).build(), c -> c.call("GET"));
      assertThat(r).isEqualTo("GET@7401");
      new Meters(engine.registry(), "m").topologyRefresh(true);
      PolledMeter.update(registry);
      Set<String> names = registry.stream()
          .map(Meter::id)
          .filter(id -> "m".equals(id.tags().iterator().hasNext() ? tag(id, "app") : null))
          .map(id -> id.name())
          .collect(Collectors.toSet());
      assertThat(names)
          .contains(
              DynoMetrics.POOL_BORROW,
              DynoMetrics.OP_LATENCY,
              DynoMetrics.POOL_SIZE,
              DynoMetrics.POOL_ACTIVE,
              DynoMetrics.POOL_IDLE,
              DynoMetrics.POOL_WAITERS,
              DynoMetrics.NODES_UP,
              DynoMetrics.NODES_DOWN,
              DynoMetrics.CONNECTIONS_CREATED,
              DynoMetrics.TOPOLOGY_REFRESH);
      assertThat(registry
              .gauge(registry
                  .createId(DynoMetrics.POOL_SIZE)
                  .withTags("app", "m", "node", a.id(), "rack", "rack1"))
              .value())
          .isEqualTo(1.0);
      assertThat(registry
              .gauge(registry.createId(DynoMetrics.NODES_UP).withTag("app", "m"))
              .value())
          .isEqualTo(1.0);
      assertThat(DynoMetrics.ALL).allMatch(n -> n.startsWith("dyno."));
      assertThat(engine.snapshot())
          .contains("rack dc1/rack1")
          .contains(a.id())
          .contains("UP")
          .contains("maxConnsPerHost = 8");
    }
  }

  private static String tag(Id id, String key) {
    for (Tag t : id.tags()) {
      if (t.key().equals(key)) {
        return t.value();
      }
    }
    return null;
  }
}
