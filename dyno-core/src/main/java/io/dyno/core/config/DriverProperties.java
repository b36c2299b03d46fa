package io.dyno.core.config;

/**
 * A configuration source that also carries settings read by a driver module rather than by the
 * engine (such as dyno-jedis' value compression), under the same property names. A driver asks its
 * {@code Supplier<DynoConfig>} for them when that supplier implements this interface.
 */
public interface DriverProperties {
  /** The raw text of property {@code <prefix><suffix>}, or null when it is not set. */
  String driverProperty(String suffix);

  /** The full name of a property, for error messages. */
  String driverPropertyName(String suffix);
}
