package io.dyno.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.netflix.spectator.api.Registry;
import com.netflix.spectator.api.patterns.PolledMeter;
import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.Host;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.metrics.DynoMetrics;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.Transport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A client whose registry is {@link DynoMicrometer#registry} over a {@link SimpleMeterRegistry},
 * after a few calls on a companion cluster of 3 racks x 2 nodes: Dyno's meters are in Micrometer
 * with the names and tags of docs/metrics.md (borrow delay first).
 */
class DynoMicrometerTest {

  static DynoJedisClient client(
      CompanionCluster cluster, Transport transport, Registry registry, String app) {
    return DynoJedisClient.builder()
        .applicationName(app)
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .transport(transport)
        .registry(registry)
        .build();
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void afterAFewCallsTheBorrowDelayAndTheOtherMetersAreInMicrometerWithTheirTags(
      Transport transport) {
    SimpleMeterRegistry micrometer = new SimpleMeterRegistry();
    // The simple registry keeps no histogram buckets: what the bridge asked for is read off the
    // filter chain.
    Map<String, DistributionStatisticConfig> asked = new ConcurrentHashMap<>();
    micrometer.config().meterFilter(new MeterFilter() {
      @Override
      public DistributionStatisticConfig configure(
          Meter.Id id, DistributionStatisticConfig config) {
        asked.put(id.getName(), config);
        return config;
      }
    });
    Registry registry = DynoMicrometer.registry(micrometer);
    String app = "mm-" + transport.name().toLowerCase(Locale.ROOT);
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(3)
            .nodesPerRack(2)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = client(cluster, transport, registry, app)) {
      for (int i = 0; i < 20; i++) {
        client.set("mm:" + i, "v" + i);
        assertThat(client.get("mm:" + i)).isEqualTo("v" + i);
      }
      Host node = cluster.ownerOf("rack1", "mm:0").host();
      Tags nodeTags = Tags.of("app", app, "node", node.id(), "rack", "rack1");

      // Borrow delay: every borrow counted (immediate ones published by the maintenance task, every
      // second).
      Timer borrow = micrometer.find(DynoMetrics.POOL_BORROW).tags(nodeTags).timer();
      assertThat(borrow)
          .as("dyno.pool.borrow of " + node.id() + " in " + names(micrometer))
          .isNotNull();
      await().atMost(Duration.ofSeconds(10)).until(() -> borrow.count() > 0);
      assertThat(asked.get(DynoMetrics.POOL_BORROW)).satisfies(c -> {
        assertThat(c.isPercentileHistogram()).as("a percentile histogram").isTrue();
        assertThat(c.getMinimumExpectedValueAsDouble())
            .isEqualTo(1_000.0); // ns: 1 µs, as Spectator's range
        assertThat(c.getMaximumExpectedValueAsDouble()).isEqualTo(60e9);
      });
      assertThat(asked.get(DynoMetrics.OP_LATENCY).isPercentileHistogram())
          .isNotEqualTo(Boolean.TRUE);
      assertThat(micrometer.getMeters())
          .as("Spectator's own percentile bucket counters stay out")
          .noneMatch(m -> m.getId().getTag("statistic") != null);

      Timer gets = micrometer
          .find(DynoMetrics.OP_LATENCY)
          .tags("app", app, "command", "GET", "outcome", "success", "rack", "rack1")
          .timer();
      assertThat(gets).isNotNull();
      assertThat(gets.count()).isEqualTo(20);
      assertThat(gets.totalTime(TimeUnit.NANOSECONDS)).isPositive();

      Counter refreshes = micrometer
          .find(DynoMetrics.TOPOLOGY_REFRESH)
          .tags("app", app, "result", "success")
          .counter();
      assertThat(refreshes).isNotNull();
      assertThat(refreshes.count()).isPositive();
      assertThat(micrometer
              .find(DynoMetrics.CONNECTIONS_CREATED)
              .tags("app", app, "node", node.id())
              .counter())
          .isNotNull();

      PolledMeter.update(registry); // Spectator polls gauges every 10 s; no need to wait here
      assertThat(gauge(micrometer, DynoMetrics.NODES_UP, Tags.of("app", app))).isEqualTo(6);
      assertThat(gauge(micrometer, DynoMetrics.POOL_SIZE, nodeTags)).isPositive();
      assertThat(gauge(micrometer, DynoMetrics.POOL_WAITERS, nodeTags)).isZero();
      if (transport == Transport.MULTIPLEXED) {
        assertThat(gauge(micrometer, DynoMetrics.MUX_IN_FLIGHT, nodeTags)).isZero();
        assertThat(gauge(micrometer, DynoMetrics.MUX_QUEUED, nodeTags)).isZero();
        Timer queueDelay =
            micrometer.find(DynoMetrics.MUX_QUEUE_DELAY).tags(nodeTags).timer();
        assertThat(queueDelay).isNotNull();
        assertThat(queueDelay.count()).isPositive();
        assertThat(
                micrometer.find(DynoMetrics.MUX_WRITE_COMMANDS).tags(nodeTags).summary())
            .isNotNull();
      }
    }
  }

  @Test
  void failoversAndHedgesAreCountedWithTheirCommandAndRackOrResult() throws Exception {
    SimpleMeterRegistry micrometer = new SimpleMeterRegistry();
    String app = "mm-moves";
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(3)
            .nodesPerRack(2)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client =
            client(cluster, Transport.MULTIPLEXED, DynoMicrometer.registry(micrometer), app)) {
      String hedged = "mm:hedge";
      String moved = keyNotOwnedBy(cluster, cluster.ownerOf("rack1", hedged), "mm:failover:");
      client.set(hedged, "h");
      client.set(moved, "f");

      CompanionNode slow = cluster.ownerOf("rack1", hedged);
      slow.delayReplies(Duration.ofMillis(500));
      client
          .async()
          .withOptions(CallOptions.defaults().withHedging(HedgePolicy.after(Duration.ofMillis(20))))
          .get(hedged)
          .get(
              10,
              TimeUnit.SECONDS); // the hedge's answer (replicated yet or not) is not what counts
      slow.delayReplies(Duration.ZERO);
      assertThat(
              count(micrometer, DynoMetrics.HEDGES, "app", app, "command", "GET", "result", "sent"))
          .isEqualTo(1);
      assertThat(
              count(micrometer, DynoMetrics.HEDGES, "app", app, "command", "GET", "result", "won"))
          .isEqualTo(1);

      CompanionNode stopped = cluster.ownerOf("rack1", moved);
      stopped.stop();
      client.get(
          moved); // may answer null if the write has not reached the other rack yet: the move is
      // what counts
      double failovers =
          micrometer
              .find(DynoMetrics.OP_FAILOVERS)
              .tags("app", app, "command", "GET")
              .counters()
              .stream()
              .mapToDouble(Counter::count)
              .sum();
      assertThat(failovers).isPositive();
      assertThat(micrometer
              .find(DynoMetrics.OP_FAILOVERS)
              .tags("app", app, "command", "GET")
              .counters())
          .allSatisfy(c -> assertThat(c.getId().getTag("rack")).isIn("rack2", "rack3"));
    }
  }

  /** A key whose rack1 owner is not {@code node} (so stopping its owner leaves the hedged key's alone). */
  static String keyNotOwnedBy(CompanionCluster cluster, CompanionNode node, String prefix) {
    for (int i = 0; ; i++) {
      if (cluster.ownerOf("rack1", prefix + i) != node) {
        return prefix + i;
      }
    }
  }

  static double gauge(SimpleMeterRegistry micrometer, String name, Tags tags) {
    Gauge g = micrometer.find(name).tags(tags).gauge();
    assertThat(g).as(name + " " + tags + " in " + names(micrometer)).isNotNull();
    return g.value();
  }

  static double count(SimpleMeterRegistry micrometer, String name, String... tags) {
    Counter c = micrometer.find(name).tags(tags).counter();
    assertThat(c).as(name + " " + List.of(tags) + " in " + names(micrometer)).isNotNull();
    return c.count();
  }

  static List<String> names(SimpleMeterRegistry micrometer) {
    return micrometer.getMeters().stream()
        .map(Meter::getId)
        .map(id -> id.getName() + id.getTags())
        .sorted()
        .toList();
  }
}
