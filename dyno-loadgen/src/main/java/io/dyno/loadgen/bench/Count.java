package io.dyno.loadgen.bench;

/**
 * A per-node count that may be unavailable: either a number or "n/a" with the reason (never a
 * sentinel such as -1 that a table would print as if it were measured). In JSON a number, or the
 * string {@code "n/a (reason)"}.
 */
public record Count(long value, String unavailable) {
  public static Count of(long value) {
    return new Count(value, null);
  }

  public static Count na(String reason) {
    return new Count(0, reason == null || reason.isBlank() ? "unknown" : reason);
  }

  public boolean available() {
    return unavailable == null;
  }

  /** Sum of two counts; n/a when either is (with the first reason). */
  public Count plus(Count other) {
    if (!available()) return this;
    if (!other.available()) return other;
    return of(value + other.value);
  }

  /** The number, or "n/a (reason)". */
  @Override
  public String toString() {
    return available() ? Long.toString(value) : "n/a (" + unavailable + ")";
  }
}
