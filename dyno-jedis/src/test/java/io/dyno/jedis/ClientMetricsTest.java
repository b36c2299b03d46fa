package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Registry;
import com.netflix.spectator.api.Tag;
import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import org.junit.jupiter.api.Test;

/** The client's own Spectator meters, fed by the engine and the topology refresher it builds. */
class ClientMetricsTest {

  private static long count(Registry registry, String name, String tagKey, String tagValue) {
    return registry
        .counters()
        .filter(c -> c.id().name().equals(name))
        .filter(c -> hasTag(c.id().tags(), tagKey, tagValue))
        .mapToLong(c -> c.count())
        .sum();
  }

  private static boolean hasTag(Iterable<Tag> tags, String key, String value) {
    for (Tag t : tags) {
      if (t.key().equals(key) && t.value().equals(value)) {
        return true;
      }
    }
    return false;
  }

  @Test
  void theFirstTopologyRefreshAndEveryCommandAreRecorded() {
    Registry registry = new DefaultRegistry();
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(2)
            .nodesPerRack(1)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = DynoJedisClient.builder()
            .applicationName("metrics")
            .hostSupplier(cluster.hostSupplier())
            .tokenMapSupplier(cluster.tokenMapSupplier())
            .localRack("rack1")
            .registry(registry)
            .build()) {
      assertThat(count(registry, "dyno.topology.refresh", "result", "success"))
          .as("the refresh that found the cluster, run before the engine existed")
          .isEqualTo(1);
      client.set("m:1", "x");
      assertThat(client.get("m:1")).isEqualTo("x");
      assertThat(registry
              .timers()
              .filter(t -> t.id().name().equals("dyno.op.latency"))
              .mapToLong(t -> t.count())
              .sum())
          .isGreaterThanOrEqualTo(2);
    }
  }
}
