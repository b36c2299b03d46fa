package io.dyno.spring;

import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.DynoJedisClientBuilder;
import io.dyno.micrometer.DynoMicrometer;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * With Micrometer and dyno-micrometer on the class path: the auto-configured client records its
 * meters (docs/metrics.md) into the application's {@link MeterRegistry}, through
 * {@link DynoMicrometer#registry(MeterRegistry)}.
 */
@AutoConfiguration(before = DynoAutoConfiguration.class)
@ConditionalOnClass({DynoJedisClient.class, MeterRegistry.class, DynoMicrometer.class})
public class DynoMetricsAutoConfiguration {

  @Bean
  DynoJedisClientBuilderCustomizer dynoMicrometerCustomizer(
      ObjectProvider<MeterRegistry> meterRegistry) {
    return new MicrometerCustomizer(meterRegistry);
  }

  /** Runs first, so that a customizer of the application's may still set a registry of its own. */
  private record MicrometerCustomizer(ObjectProvider<MeterRegistry> meterRegistry)
      implements DynoJedisClientBuilderCustomizer, Ordered {

    @Override
    public void customize(DynoJedisClientBuilder builder) {
      MeterRegistry registry = meterRegistry.getIfUnique();
      if (registry != null) {
        builder.registry(DynoMicrometer.registry(registry));
      }
    }

    @Override
    public int getOrder() {
      return Ordered.HIGHEST_PRECEDENCE;
    }
  }
}
