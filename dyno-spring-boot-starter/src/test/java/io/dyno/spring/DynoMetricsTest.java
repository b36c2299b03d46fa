package io.dyno.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.companion.CompanionCluster;
import io.dyno.jedis.DynoJedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** With Micrometer present, the auto-configured client's meters land in the application's MeterRegistry. */
class DynoMetricsTest {
  private static CompanionCluster cluster;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(
          AutoConfigurations.of(DynoAutoConfiguration.class, DynoMetricsAutoConfiguration.class));

  @BeforeAll
  static void startCluster() {
    cluster = CompanionCluster.builder()
        .racks(2)
        .nodesPerRack(1)
        .basePort(CompanionCluster.freeBasePort(2))
        .start();
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  private ApplicationContextRunner withCluster() {
    return runner.withPropertyValues(
        "dyno.cluster-describe-url=" + cluster.node("rack1", 0).adminUrl() + "/cluster_describe",
        "dyno.local-rack=rack1",
        "dyno.application-name=metered");
  }

  private static long calls(MeterRegistry registry) {
    return registry.find("dyno.op.latency").tag("app", "metered").timers().stream()
        .mapToLong(Timer::count)
        .sum();
  }

  @Test
  void everyCallIsTimedInTheApplicationsMeterRegistry() {
    withCluster().withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
      DynoJedisClient client = context.getBean(DynoJedisClient.class);
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      long before = calls(registry);
      client.set("metrics:a", "1");
      assertThat(client.get("metrics:a")).isEqualTo("1");
      assertThat(calls(registry) - before).isEqualTo(2);
      assertThat(registry.find("dyno.topology.refresh").tag("result", "success").counter())
          .as("the refresh that found the cluster")
          .isNotNull();
    });
  }

  @Test
  void aCustomizerOfTheApplicationMaySetItsOwnRegistry() {
    DefaultRegistry own = new DefaultRegistry();
    withCluster()
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withBean(DynoJedisClientBuilderCustomizer.class, () -> builder -> builder.registry(own))
        .run(context -> {
          context.getBean(DynoJedisClient.class).set("metrics:b", "2");
          assertThat(calls(context.getBean(MeterRegistry.class))).isZero();
          assertThat(own.timers()
                  .filter(t -> t.id().name().equals("dyno.op.latency"))
                  .count())
              .isPositive();
        });
  }

  @Test
  void withoutMicrometerTheClientStartsAllTheSame() {
    withCluster().withClassLoader(new FilteredClassLoader(MeterRegistry.class)).run(context -> {
      assertThat(context).hasNotFailed().doesNotHaveBean(DynoJedisClientBuilderCustomizer.class);
      DynoJedisClient client = context.getBean(DynoJedisClient.class);
      client.set("metrics:c", "3");
      assertThat(client.get("metrics:c")).isEqualTo("3");
    });
  }
}
