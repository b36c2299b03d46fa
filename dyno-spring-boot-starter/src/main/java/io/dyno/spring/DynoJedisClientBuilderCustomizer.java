package io.dyno.spring;

import io.dyno.jedis.DynoJedisClientBuilder;

/**
 * Changes the auto-configured client's builder after the {@code dyno.*} properties are applied and
 * before the client is built: for what properties cannot say, such as an event listener, a TLS context
 * of your own or a shadow cluster. Every customizer bean is applied, in {@code @Order}.
 */
@FunctionalInterface
public interface DynoJedisClientBuilderCustomizer {

  /**
   * Changes the builder.
   *
   * @param builder the builder, with the properties applied
   */
  void customize(DynoJedisClientBuilder builder);
}
