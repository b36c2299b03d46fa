package io.dyno.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepository;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;

/** IDEs complete {@code dyno.*} from the metadata the configuration processor writes into the jar. */
class PropertyMetadataTest {

  private static ConfigurationMetadataRepository metadata() throws Exception {
    try (InputStream in =
        DynoProperties.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in)
          .as("META-INF/spring-configuration-metadata.json in the module's classes")
          .isNotNull();
      return ConfigurationMetadataRepositoryJsonBuilder.create(StandardCharsets.UTF_8)
          .withJsonResource(in)
          .build();
    }
  }

  @Test
  void everyPropertyIsDescribedWithItsType() throws Exception {
    var properties = metadata().getAllProperties();
    assertThat(properties)
        .containsKeys(
            "dyno.cluster-describe-url",
            "dyno.hosts",
            "dyno.local-rack",
            "dyno.local-datacenter",
            "dyno.application-name",
            "dyno.consistency",
            "dyno.transport",
            "dyno.request-deadline",
            "dyno.hedge-reads",
            "dyno.tls.enabled",
            "dyno.tls.bundle",
            "dyno.pool.max-conns-per-host",
            "dyno.health.cool-down",
            "dyno.mux.max-in-flight",
            "management.health.dyno.enabled");
    for (ConfigurationMetadataProperty p : properties.values()) {
      if (p.getId().startsWith("dyno.")) {
        assertThat(p.getDescription()).as("description of %s", p.getId()).isNotBlank();
        assertThat(p.getType()).as("type of %s", p.getId()).isNotBlank();
      }
    }
    assertThat(properties.get("dyno.consistency").getType())
        .isEqualTo("io.dyno.core.ConsistencyLevel");
    assertThat(properties.get("dyno.request-deadline").getType()).isEqualTo("java.time.Duration");
    assertThat(properties.get("dyno.tls.verify-hostname").getDefaultValue()).isEqualTo(true);
  }
}
