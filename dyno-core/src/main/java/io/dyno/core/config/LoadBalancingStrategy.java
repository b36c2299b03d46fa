package io.dyno.core.config;

import java.util.Locale;

/** How a key picks its node: Dynomite's token ring (default) or round-robin (for clients that cannot hash). */
public enum LoadBalancingStrategy {
  TOKEN_AWARE, ROUND_ROBIN;

  /** Accepts the original Dyno's {@code TokenAware} / {@code RoundRobin} as well as the enum names. */
  public static LoadBalancingStrategy parse(String text) {
    String t = text == null ? "" : text.trim().replace("_", "").toLowerCase(Locale.ROOT);
    return switch (t) {
      case "tokenaware" -> TOKEN_AWARE;
      case "roundrobin" -> ROUND_ROBIN;
      default -> throw new IllegalArgumentException(
          "lbStrategy: unknown value \"" + text + "\"; expected TokenAware or RoundRobin");
    };
  }
}
