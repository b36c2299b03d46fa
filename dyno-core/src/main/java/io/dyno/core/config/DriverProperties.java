package io.dyno.core.config;

/**
 * A configuration source that also carries settings read by a driver module rather than by the
 * engine (such as dyno-jedis' value compression), under the same property names. A driver asks its
 * {@code Supplier<DynoConfig>} for them when that supplier implements this interface.
 */
public interface DriverProperties {
  /**
   * The raw text of a property, read now (a live source may give another value later).
   *
   * @param suffix the name after the prefix {@code dyno.<app>.}, e.g. {@code compressionStrategy}
   * @return the property's text, or null when it is not set
   */
  String driverProperty(String suffix);

  /**
   * The full name of a property, for error messages.
   *
   * @param suffix the name after the prefix, as for {@link #driverProperty}
   * @return the name with its prefix, e.g. {@code dyno.orders.compressionStrategy}
   */
  String driverPropertyName(String suffix);
}
