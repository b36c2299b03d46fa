package io.dyno.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.CompanionCluster;
import io.dyno.core.ConsistencyLevel;
import io.dyno.jedis.ClientClosedException;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.spring.internal.ClusterSource;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The client bean, made from {@code dyno.*} properties alone, against a real companion cluster. */
class DynoAutoConfigurationTest {
  private static CompanionCluster cluster;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DynoAutoConfiguration.class));

  @BeforeAll
  static void startCluster() {
    // Fixed ports: cluster_describe gives peer ports, and the client takes client = peer + 1.
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

  private static String describeUrl() {
    return cluster.node("rack2", 0).adminUrl() + "/cluster_describe";
  }

  @Test
  void theClientIsBuiltFromClusterDescribePropertiesAndServesGetAndSet() {
    runner
        .withPropertyValues(
            "dyno.cluster-describe-url=" + describeUrl(),
            "dyno.local-rack=rack1",
            "dyno.application-name=spring-describe",
            "dyno.consistency=DC_QUORUM",
            "dyno.request-deadline=2s",
            "dyno.hedge-reads=after:50",
            "dyno.pool.max-conns-per-host=4",
            "dyno.transport=POOLED")
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(DynoJedisClient.class);
          DynoJedisClient client = context.getBean(DynoJedisClient.class);
          assertThat(client.set("spring:greeting", "hello")).isEqualTo("OK");
          assertThat(client.get("spring:greeting")).isEqualTo("hello");
          assertThat(client.topology().localRack()).isEqualTo("rack1");
          assertThat(client.topology().hosts()).hasSize(2);
          DynoProperties properties = context.getBean(DynoProperties.class);
          assertThat(properties.consistency()).isEqualTo(ConsistencyLevel.DC_QUORUM);
          assertThat(properties.pool().maxConnsPerHost()).isEqualTo(4);
        });
  }

  @Test
  void theClientIsBuiltFromAStaticHostList() {
    String hosts = cluster.nodes().stream()
        .map(n ->
            "127.0.0.1:" + n.clientPort() + ":" + n.rack() + ":" + n.datacenter() + ":" + n.token())
        .collect(Collectors.joining(","));
    runner
        .withPropertyValues(
            "dyno.hosts=" + hosts, "dyno.local-rack=rack2", "dyno.local-datacenter=dc1")
        .run(context -> {
          assertThat(context).hasNotFailed();
          DynoJedisClient client = context.getBean(DynoJedisClient.class);
          client.set("spring:static", "v");
          assertThat(client.get("spring:static")).isEqualTo("v");
          assertThat(client.topology().localRack()).isEqualTo("rack2");
        });
  }

  @Test
  void theClientIsClosedWithTheContext() {
    runner
        .withPropertyValues("dyno.cluster-describe-url=" + describeUrl(), "dyno.local-rack=rack1")
        .run(context -> {
          DynoJedisClient client = context.getBean(DynoJedisClient.class);
          client.set("spring:close", "x");
          context.close();
          assertThatThrownBy(() -> client.get("spring:close"))
              .isInstanceOf(ClientClosedException.class);
        });
  }

  @Test
  void aUserDefinedClientWins() {
    AtomicReference<DynoJedisClient> made = new AtomicReference<>();
    // No dyno.* cluster at all: the auto-configured client would refuse to start.
    runner
        .withBean(DynoJedisClient.class, () -> {
          made.set(DynoJedisClient.builder()
              .applicationName("users-own")
              .hostSupplier(cluster.hostSupplier())
              .tokenMapSupplier(cluster.tokenMapSupplier())
              .localRack("rack2")
              .build());
          return made.get();
        })
        .run(context -> {
          assertThat(context)
              .hasNotFailed()
              .hasSingleBean(DynoJedisClient.class)
              .doesNotHaveBean(ClusterSource.class);
          DynoJedisClient client = context.getBean(DynoJedisClient.class);
          assertThat(client).isSameAs(made.get());
          client.set("spring:own", "mine");
          assertThat(client.get("spring:own")).isEqualTo("mine");
        });
  }

  @Test
  void noClusterFailsTheStartNamingTheProperties() {
    runner.run(context -> assertThat(context)
        .hasFailed()
        .getFailure()
        .rootCause()
        .hasMessageContaining("dyno.cluster-describe-url")
        .hasMessageContaining("dyno.hosts"));
  }

  // Dyno's own message stays the cause of the one naming the property: look through the chain.
  @Test
  void aBadValueFailsTheStartNamingTheProperty() {
    runner
        .withPropertyValues(
            "dyno.cluster-describe-url=" + describeUrl(), "dyno.pool.max-conns-per-host=0")
        .run(context -> assertThat(context)
            .hasFailed()
            .getFailure()
            .hasStackTraceContaining("dyno.pool.max-conns-per-host=0"));
    runner
        .withPropertyValues("dyno.hosts=127.0.0.1:8102:rack1:dc1")
        .run(context -> assertThat(context)
            .hasFailed()
            .getFailure()
            .hasStackTraceContaining("dyno.hosts[0]=127.0.0.1:8102:rack1:dc1")
            .hasStackTraceContaining("host:port:rack:datacenter:token"));
    runner
        .withPropertyValues("dyno.hosts=127.0.0.1:8102:rack1:dc1:0", "dyno.hedge-reads=sometimes")
        .run(context -> assertThat(context)
            .hasFailed()
            .getFailure()
            .hasStackTraceContaining("dyno.hedge-reads=sometimes"));
  }

  @Test
  void tlsSettingsThatCannotWorkAreRefusedByName() {
    runner
        .withPropertyValues("dyno.hosts=127.0.0.1:8102:rack1:dc1:0", "dyno.tls.bundle=nodes")
        .run(context -> assertThat(context)
            .hasFailed()
            .getFailure()
            .hasStackTraceContaining("dyno.tls.bundle=nodes")
            .hasStackTraceContaining("dyno.tls.enabled"));
    runner
        .withPropertyValues(
            "dyno.hosts=127.0.0.1:8102:rack1:dc1:0",
            "dyno.tls.enabled=true",
            "dyno.tls.bundle=nodes")
        .run(context -> assertThat(context)
            .hasFailed()
            .getFailure()
            .hasStackTraceContaining("dyno.tls.bundle=nodes"));
  }
}
