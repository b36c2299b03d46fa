package io.dyno.loadgen.drivers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.Backend;
import io.dyno.core.Host;
import io.dyno.loadgen.bench.Bench;
import io.dyno.loadgen.bench.BenchConfig;
import io.dyno.loadgen.bench.BenchResult;
import io.dyno.loadgen.bench.ClientCpu;
import io.dyno.loadgen.target.EmbeddedTarget;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Netflix Dyno 1.7.2 against the companion cluster, from the class loader of its own jars (the
 * folder module dyno-loadgen-netflix builds; the build gives its path to the tests).
 */
class NetflixDynoDriverTest {

  @Test
  void itRunsInItsOwnClassLoaderAndSendsEachKeyToItsOwnerInTheLocalRack() throws Exception {
    try (EmbeddedTarget target = EmbeddedTarget.start(3, 2, Backend.MEMORY);
        NetflixDynoDriver d =
            new NetflixDynoDriver(target.tokens(), "rack1", 4, Duration.ofSeconds(2))) {
      for (int i = 0; i < 50; i++) {
        d.set("k" + i, "v" + i);
      }
      for (int i = 0; i < 50; i++) {
        assertThat(d.get("k" + i)).isEqualTo("v" + i);
      }

      Map<String, Long> sent = d.requestsByNode();
      List<String> rack1 = target.hosts().stream()
          .filter(h -> h.rack().equals("rack1"))
          .map(Host::id)
          .toList();
      assertThat(rack1.stream().mapToLong(id -> sent.getOrDefault(id, 0L)).sum())
          .isEqualTo(100);
      assertThat(rack1).allMatch(id -> sent.getOrDefault(id, 0L) > 0);
      // Token-aware: no node had to forward a request to the key's owner.
      target.cluster().nodes().forEach(n -> assertThat(n.stats().forwarded()).isZero());
      // Its Jedis 3 and its own classes stay out of this class path (Dyno's Jedis 8).
      assertThat(getClass()
              .getClassLoader()
              .getResource("com/netflix/dyno/jedis/DynoJedisClient.class"))
          .isNull();
      assertThat(
              getClass().getClassLoader().getResource("redis/clients/jedis/JedisShardInfo.class"))
          .isNull();
    }
  }

  @Test
  void aBenchRunBackfillsWithoutPipelinesAndReportsTheClientsCpuPerOperation() throws Exception {
    try (EmbeddedTarget target = EmbeddedTarget.start(3, 2, Backend.MEMORY);
        NetflixDynoDriver d =
            new NetflixDynoDriver(target.tokens(), "rack1", 4, Duration.ofSeconds(2))) {
      BenchConfig cfg = BenchConfig.builder()
          .threads(2)
          .readers(0)
          .writers(0)
          .keys(300)
          .valueSize(64)
          .duration(Duration.ofMillis(800))
          .build();
      BenchResult r = new Bench(cfg, d, line -> {})
          .clientCpu(new ClientCpu(target.serverThreadPrefix()))
          .run();

      assertThat(r.backfilledKeys()).isEqualTo(300);
      assertThat(r.errors()).isZero();
      assertThat(r.errorKinds()).isEmpty();
      assertThat(r.ops()).isPositive();
      assertThat(r.clientCpu().available()).isTrue();
      assertThat(r.clientCpu().microsPerOp()).isPositive();
      assertThat(r.summaryText()).contains("client CPU: ").contains("Netflix Dyno 1.7.2");
    }
  }

  @Test
  void pipelinesAreRefusedByName() throws Exception {
    try (EmbeddedTarget target = EmbeddedTarget.start(3, 2, Backend.MEMORY);
        NetflixDynoDriver d =
            new NetflixDynoDriver(target.tokens(), "rack1", 2, Duration.ofSeconds(2))) {
      BenchConfig cfg = BenchConfig.builder()
          .threads(1)
          .readers(0)
          .writers(0)
          .backfill(false)
          .set("pipeline", "3-10")
          .duration(Duration.ofMillis(200))
          .build();
      assertThatThrownBy(() -> new Bench(cfg, d, line -> {}).run())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("setting pipeline: driver netflix-dyno");
      assertThatThrownBy(() -> d.pipeline(List.of()))
          .hasMessageContaining("binds a pipeline to the node of its first key");
    }
  }
}
