package io.dyno.spring;

import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.DynoJedisClientBuilder;
import io.dyno.spring.internal.ClientSettings;
import io.dyno.spring.internal.ClientStartException;
import io.dyno.spring.internal.ClusterSource;
import io.dyno.spring.internal.JedisVersion;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import redis.clients.jedis.UnifiedJedis;

/**
 * A {@link DynoJedisClient} built from the {@code dyno.*} properties ({@link DynoProperties}), closed
 * with the application context. An application that defines its own {@code DynoJedisClient} bean
 * keeps it: nothing here is made then. {@link DynoJedisClientBuilderCustomizer} beans change the
 * builder before the client is built ({@link DynoMetricsAutoConfiguration} adds one for Micrometer).
 * A Jedis older than Dyno's, a {@code dyno.*} property it cannot use and a cluster that does not let
 * the client start each fail the start with a one-paragraph summary (the failure analyzers of
 * META-INF/spring.factories) naming what to set.
 */
@AutoConfiguration
@ConditionalOnClass(DynoJedisClient.class)
@EnableConfigurationProperties(DynoProperties.class)
public class DynoAutoConfiguration {

  /** Checks the Jedis version first: an older Jedis would fail later, with a linkage error. */
  public DynoAutoConfiguration() {
    JedisVersion.check(UnifiedJedis.class.getClassLoader());
  }

  /** Closed after the client (which depends on it): cluster_describe's HTTP threads end with the context. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean(DynoJedisClient.class)
  ClusterSource dynoClusterSource(DynoProperties properties) {
    return ClusterSource.from(properties);
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  DynoJedisClient dynoJedisClient(
      DynoProperties properties,
      ClusterSource dynoClusterSource,
      ObjectProvider<SslBundles> sslBundles,
      ObjectProvider<DynoJedisClientBuilderCustomizer> customizers) {
    DynoJedisClientBuilder builder =
        ClientSettings.builder(properties, dynoClusterSource, sslBundles.getIfAvailable());
    customizers.orderedStream().forEach(c -> c.customize(builder));
    try {
      return builder.build();
    } catch (RuntimeException e) {
      throw ClientStartException.of(e, properties);
    }
  }
}
