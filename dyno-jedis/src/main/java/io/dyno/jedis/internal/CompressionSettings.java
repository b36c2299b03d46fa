package io.dyno.jedis.internal;

import io.dyno.core.config.DriverProperties;
import java.util.Locale;

/**
 * The client's value-compression settings when they come from a property source (Archaius) under
 * the original Dyno's names: {@code compressionStrategy} (NONE, the default, or THRESHOLD) and
 * {@code config.compressionThreshold} (bytes, default 5120). Read once, when the client is built.
 */
public final class CompressionSettings {
  public static final String STRATEGY = "compressionStrategy";
  public static final String THRESHOLD = "config.compressionThreshold";
  public static final int DEFAULT_THRESHOLD = 5120;

  private CompressionSettings() {}

  /** The threshold in bytes, or 0 for no compression; a bad value fails naming the property. */
  public static int threshold(DriverProperties props) {
    String strategy = props.driverProperty(STRATEGY);
    boolean on = false;
    if (strategy != null) {
      on = switch (strategy.trim().toUpperCase(Locale.ROOT)) {
        case "NONE" -> false;
        case "THRESHOLD" -> true;
        default -> throw invalid(props, STRATEGY, strategy, "NONE or THRESHOLD");
      };
    }
    String bytes = props.driverProperty(THRESHOLD);
    int threshold = DEFAULT_THRESHOLD;
    if (bytes != null) {
      try {
        threshold = Integer.parseInt(bytes.trim());
      } catch (NumberFormatException e) {
        throw invalid(props, THRESHOLD, bytes, ">= 0 bytes");
      }
      if (threshold < 0) {
        throw invalid(props, THRESHOLD, bytes, ">= 0 bytes");
      }
    }
    return on ? threshold : 0;
  }

  private static IllegalArgumentException invalid(
      DriverProperties props, String suffix, String value, String expected) {
    return new IllegalArgumentException("property " + props.driverPropertyName(suffix) + " = \""
        + value + "\" is invalid: expected " + expected);
  }
}
