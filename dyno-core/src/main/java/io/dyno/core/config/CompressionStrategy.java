package io.dyno.core.config;

import java.util.Locale;

/** Value compression applied by the driver module: none (default) or above a size threshold. */
public enum CompressionStrategy {
  NONE, THRESHOLD;

  public static CompressionStrategy parse(String text) {
    String t = text == null ? "" : text.trim().toUpperCase(Locale.ROOT);
    return switch (t) {
      case "NONE" -> NONE;
      case "THRESHOLD" -> THRESHOLD;
      default -> throw new IllegalArgumentException(
          "compressionStrategy: unknown value \"" + text + "\"; expected NONE or THRESHOLD");
    };
  }
}
