package io.dyno.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.Transport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The {@code dyno} health indicator follows the local rack's nodes going away and coming back. */
class DynoHealthIndicatorTest {
  private CompanionCluster cluster;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(
          AutoConfigurations.of(DynoAutoConfiguration.class, DynoHealthAutoConfiguration.class));

  @BeforeEach
  void startCluster() {
    cluster = CompanionCluster.builder()
        .racks(2)
        .nodesPerRack(2)
        .basePort(CompanionCluster.freeBasePort(4))
        .start();
  }

  @AfterEach
  void stopCluster() {
    cluster.close();
  }

  private ApplicationContextRunner withCluster() {
    // Describe through rack2, which stays up; quick probes so that a node that is back is seen
    // soon.
    return runner.withPropertyValues(
        "dyno.cluster-describe-url=" + cluster.node("rack2", 0).adminUrl() + "/cluster_describe",
        "dyno.local-rack=rack1",
        "dyno.health.cool-down=100ms",
        "dyno.health.max-cool-down=400ms",
        "dyno.pool.connect-timeout=500ms");
  }

  // On both transports: each must take a node that refuses connections out of rotation.
  @ParameterizedTest
  @EnumSource(Transport.class)
  void downWhileEveryLocalRackNodeIsStoppedAndUpWhenTheyAreBack(Transport transport) {
    withCluster().withPropertyValues("dyno.transport=" + transport).run(context -> {
      HealthIndicator indicator = context.getBean("dynoHealthIndicator", HealthIndicator.class);
      DynoJedisClient client = context.getBean(DynoJedisClient.class);
      Health first = indicator.health(true);
      assertThat(first.getStatus()).isEqualTo(Status.UP);
      assertThat(first.getDetails())
          .containsEntry("localRack", "rack1")
          .containsEntry(
              "racks",
              Map.of("rack1", Map.of("up", 2, "nodes", 2), "rack2", Map.of("up", 2, "nodes", 2)));

      List<CompanionNode> localRack = cluster.nodes("rack1");
      localRack.forEach(CompanionNode::stop);
      // The client learns of dead nodes from its calls: keep reading (rack2 serves them) until both
      // are out.
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
        for (int i = 0; i < 20; i++) {
          assertThat(client.get("health:" + i)).isNull();
        }
        assertThat(indicator.health(true).getStatus())
            .as(
                "%s: rack1's stopped nodes out of rotation: %s",
                transport, indicator.health(true).getDetails())
            .isEqualTo(Status.DOWN);
      });
      assertThat(indicator.health(true).getDetails())
          .containsEntry(
              "racks",
              Map.of("rack1", Map.of("up", 0, "nodes", 2), "rack2", Map.of("up", 2, "nodes", 2)));

      localRack.forEach(CompanionNode::start);
      // Without any call: the client's probes bring the nodes back.
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertThat(indicator.health(true).getStatus()).isEqualTo(Status.UP));
    });
  }

  @Test
  void theIndicatorReportsOnAUserDefinedClientToo() {
    runner
        .withBean(
            DynoJedisClient.class,
            () -> DynoJedisClient.builder()
                .hostSupplier(cluster.hostSupplier())
                .tokenMapSupplier(cluster.tokenMapSupplier())
                .localRack("rack2")
                .build())
        .run(context -> {
          assertThat(context).hasSingleBean(DynoHealthIndicator.class);
          Health health = context.getBean(DynoHealthIndicator.class).health(true);
          assertThat(health.getStatus()).isEqualTo(Status.UP);
          assertThat(health.getDetails()).containsEntry("localRack", "rack2");
        });
  }

  @Test
  void managementHealthDynoEnabledFalseTurnsItOff() {
    withCluster()
        .withPropertyValues("management.health.dyno.enabled=false")
        .run(context ->
            assertThat(context).hasNotFailed().doesNotHaveBean(DynoHealthIndicator.class));
  }
}
