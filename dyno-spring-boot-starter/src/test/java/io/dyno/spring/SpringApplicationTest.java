package io.dyno.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.CompanionCluster;
import io.dyno.jedis.DynoJedisClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The starter as an application meets it: a plain {@code @SpringBootApplication} (the one of
 * docs/spring-boot.md) finds the auto-configuration through META-INF/spring/...AutoConfiguration.imports.
 */
@ExtendWith(OutputCaptureExtension.class)
class SpringApplicationTest {

  @SpringBootApplication
  static class CartApplication {
    @Bean
    CommandLineRunner greet(DynoJedisClient dyno) {
      return args -> dyno.set("greeting", "hello from " + dyno.topology().localRack());
    }
  }

  @Test
  void anApplicationGetsTheClientAndItsHealthFromPropertiesAlone() {
    try (CompanionCluster cluster = CompanionCluster.builder()
        .racks(3)
        .nodesPerRack(1)
        .basePort(CompanionCluster.freeBasePort(3))
        .start()) {
      try (ConfigurableApplicationContext context = new SpringApplicationBuilder(
              CartApplication.class)
          .web(WebApplicationType.NONE)
          .properties(
              "dyno.application-name=cart",
              "dyno.cluster-describe-url=" + cluster.node("rack1", 0).adminUrl()
                  + "/cluster_describe",
              "dyno.local-rack=rack2",
              "dyno.consistency=DC_QUORUM")
          .run()) {
        DynoJedisClient client = context.getBean(DynoJedisClient.class);
        assertThat(client.get("greeting")).isEqualTo("hello from rack2");
        assertThat(context.getBean(DynoHealthIndicator.class).health(true).getStatus())
            .isEqualTo(Status.UP);
      }
    }
  }

  // The failure analyzers are found through META-INF/spring.factories, as Spring Boot finds them.
  @Test
  void aMistypedRackFailsTheStartWithASummaryInPlaceOfTheStackTrace(CapturedOutput output) {
    try (CompanionCluster cluster = CompanionCluster.builder()
        .racks(2)
        .nodesPerRack(1)
        .basePort(CompanionCluster.freeBasePort(2))
        .start()) {
      assertThatThrownBy(() -> new SpringApplicationBuilder(CartApplication.class)
              .web(WebApplicationType.NONE)
              .properties(
                  "dyno.cluster-describe-url=" + cluster.node("rack1", 0).adminUrl()
                      + "/cluster_describe",
                  "dyno.local-rack=rack-2")
              .run())
          .hasStackTraceContaining("local rack 'rack-2'");
    }
    assertThat(output.getErr() + output.getOut())
        .contains("APPLICATION FAILED TO START")
        .contains("local rack 'rack-2' is not in the cluster")
        .contains("Fix dyno.local-rack or dyno.allow-unknown-local-rack in the application's");
  }
}
