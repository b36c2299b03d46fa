package io.dyno.spring;

import io.dyno.jedis.DynoJedisClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * With Actuator (Spring Boot's health support) present: the {@code dyno} health indicator for the
 * application's {@link DynoJedisClient}, the auto-configured one or its own.
 * {@code management.health.dyno.enabled=false} turns it off.
 */
@AutoConfiguration(after = DynoAutoConfiguration.class)
@ConditionalOnClass({
  DynoJedisClient.class,
  HealthIndicator.class,
  ConditionalOnEnabledHealthIndicator.class
})
@ConditionalOnSingleCandidate(DynoJedisClient.class)
@ConditionalOnEnabledHealthIndicator("dyno")
public class DynoHealthAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "dynoHealthIndicator")
  DynoHealthIndicator dynoHealthIndicator(DynoJedisClient client) {
    return new DynoHealthIndicator(client);
  }
}
