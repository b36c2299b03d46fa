package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.metrics.DynoMetrics;
import io.dyno.core.time.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Blocking reads are hedged on both transports: with one node answering two seconds late, a
 * blocking GET of a key it owns, and an MGET split over it and another node, answer from the next
 * rack within the hedge delay's order of magnitude. On pooled sockets the attempt reading the slow
 * socket holds a thread of the engine, not the caller's.
 */
class HedgedBlockingReadsTest {
  private static final Duration LATE = Duration.ofSeconds(2);

  @ParameterizedTest
  @EnumSource(Transport.class)
  void aSlowNodesBlockingReadsAreAnsweredByTheHedge(Transport transport) throws Exception {
    DefaultRegistry registry = new DefaultRegistry();
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(3)
            .nodesPerRack(2)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = DynoJedisClient.builder()
            .applicationName("hedged-blocking")
            .hostSupplier(cluster.hostSupplier())
            .tokenMapSupplier(cluster.tokenMapSupplier())
            .localRack("rack1")
            .transport(transport)
            .registry(registry)
            .config(DynoConfig.builder()
                .applicationName("hedged-blocking")
                .socketTimeout(Duration.ofSeconds(5))
                .hedgeReads(HedgePolicy.after(Duration.ofMillis(30)))
                .build())
            .build()) {
      CompanionNode slow = cluster.node("rack1", 0);
      List<String> slowKeys = new ArrayList<>();
      List<String> keys = new ArrayList<>();
      for (int i = 0; keys.size() < 20; i++) {
        String key = "hb:" + i;
        client.set(key, "v" + i);
        keys.add(key);
        Host owner = client.topology().replicas(key).get(0);
        if (owner.port() == slow.host().port()) {
          slowKeys.add(key);
        }
      }
      assertThat(slowKeys).as("keys the slow node owns").isNotEmpty();
      slow.delayReplies(LATE);
      try {
        Ticker clock = Ticker.system();
        for (String key : slowKeys) {
          long start = clock.nanoTime();
          assertThat(client.get(key)).isEqualTo("v" + key.substring(3));
          assertThat(Duration.ofNanos(clock.nanoTime() - start))
              .as("GET %s, answered by the hedge", key)
              .isLessThan(LATE.dividedBy(2));
        }
        long start = clock.nanoTime();
        List<String> values = client.mget(keys.toArray(String[]::new));
        assertThat(Duration.ofNanos(clock.nanoTime() - start))
            .as("MGET over the slow node and another, its slow part hedged")
            .isLessThan(LATE.dividedBy(2));
        for (int i = 0; i < keys.size(); i++) {
          assertThat(values.get(i)).isEqualTo("v" + keys.get(i).substring(3));
        }
      } finally {
        slow.clearFaults(); // what is already delayed still comes late
      }
      double won = registry
          .counter(registry
              .createId(DynoMetrics.HEDGES)
              .withTag("app", "hedged-blocking")
              .withTag("command", "GET")
              .withTag("result", "won"))
          .count();
      // positive, not one per key: once the node is steered away from, its keys go elsewhere first
      assertThat(won).as("GETs answered by their hedge").isPositive();
    }
  }
}
