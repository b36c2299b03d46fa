package io.dyno.jedis.internal;

import io.dyno.core.config.DriverProperties;
import java.util.List;
import java.util.Locale;

/**
 * The transport's settings, a dyno-jedis concern like value compression: this is their one table
 * (name, default, unit, property under {@code dyno.<app>.}, bounds), documented in docs/configuration.md's
 * "Transport settings" table and checked against it. {@code DynoJedisClientBuilder}'s methods set
 * them; a property source ({@code ArchaiusDynoConfig}, through {@link DriverProperties}) may carry
 * them too, read once when the client is built (the builder wins). None changes live: the
 * transport and its shared connections are made at build.
 */
public final class TransportSettings {
  /** One row of the table. */
  public record Knob(
      String name, String defaultText, String unit, String property, int min, int max) {
    /** "name must be min..max, was v" when {@code v} is out of bounds. */
    public int check(int v) {
      if (v < min || v > max) {
        throw new IllegalArgumentException(name + " must be " + min + ".." + max + ", was " + v);
      }
      return v;
    }
  }

  public static final int DEFAULT_CONNECTIONS_PER_NODE = 1;
  public static final int DEFAULT_MAX_IN_FLIGHT = 1024;
  public static final int DEFAULT_MAX_WRITES_IN_FLIGHT = 1;
  public static final int DEFAULT_MAX_BULK_BYTES = 512 << 20;

  public static final Knob TRANSPORT =
      new Knob("transport", "MULTIPLEXED", "–", "connection.transport", 0, 0);
  public static final Knob CONNECTIONS_PER_NODE = new Knob(
      "muxConnectionsPerNode",
      String.valueOf(DEFAULT_CONNECTIONS_PER_NODE),
      "connections",
      "connection.muxConnectionsPerNode",
      1,
      64);
  public static final Knob MAX_IN_FLIGHT = new Knob(
      "muxMaxInFlight",
      String.valueOf(DEFAULT_MAX_IN_FLIGHT),
      "requests",
      "connection.muxMaxInFlight",
      1,
      1 << 20);
  public static final Knob MAX_WRITES_IN_FLIGHT = new Knob(
      "muxMaxWritesInFlight",
      String.valueOf(DEFAULT_MAX_WRITES_IN_FLIGHT),
      "writes",
      "connection.muxMaxWritesInFlight",
      0,
      1024);
  public static final Knob MAX_BULK_BYTES = new Knob(
      "muxMaxBulkBytes",
      String.valueOf(DEFAULT_MAX_BULK_BYTES),
      "bytes",
      "connection.muxMaxBulkBytes",
      1,
      DEFAULT_MAX_BULK_BYTES);

  /** Every transport setting, in the order of docs/configuration.md. */
  public static final List<Knob> ALL =
      List.of(TRANSPORT, CONNECTIONS_PER_NODE, MAX_IN_FLIGHT, MAX_WRITES_IN_FLIGHT, MAX_BULK_BYTES);

  /** The values a client is built with. */
  public record Values(
      boolean multiplexed,
      int connectionsPerNode,
      int maxInFlight,
      int maxWritesInFlight,
      int maxBulkBytes) {}

  private TransportSettings() {}

  /**
   * The builder's values where set (non-null), else the properties', else the defaults; the
   * transport is multiplexed by default unless {@code multiplexedByDefault} is false (where only
   * pooled sockets can serve the client's other settings). A bad property fails naming it and its
   * value.
   *
   * @param multiplexed the builder's transport: true multiplexed, false pooled, null not set
   */
  public static Values resolve(
      Boolean multiplexed,
      Integer connectionsPerNode,
      Integer maxInFlight,
      Integer maxWritesInFlight,
      Integer maxBulkBytes,
      DriverProperties props,
      boolean multiplexedByDefault) {
    return new Values(
        multiplexed != null ? multiplexed : multiplexed(props, multiplexedByDefault),
        connectionsPerNode != null ? connectionsPerNode : number(props, CONNECTIONS_PER_NODE),
        maxInFlight != null ? maxInFlight : number(props, MAX_IN_FLIGHT),
        maxWritesInFlight != null ? maxWritesInFlight : number(props, MAX_WRITES_IN_FLIGHT),
        maxBulkBytes != null ? maxBulkBytes : number(props, MAX_BULK_BYTES));
  }

  private static boolean multiplexed(DriverProperties props, boolean byDefault) {
    String raw = props == null ? null : props.driverProperty(TRANSPORT.property());
    if (raw == null) {
      return byDefault;
    }
    return switch (raw.trim().toUpperCase(Locale.ROOT)) {
      case "POOLED" -> false;
      case "MULTIPLEXED" -> true;
      default -> throw invalid(props, TRANSPORT, raw, "Pooled or Multiplexed");
    };
  }

  private static int number(DriverProperties props, Knob knob) {
    String raw = props == null ? null : props.driverProperty(knob.property());
    if (raw == null) {
      return Integer.parseInt(knob.defaultText());
    }
    String expected = knob.min() + ".." + knob.max() + " " + knob.unit();
    int v;
    try {
      v = Integer.parseInt(raw.trim());
    } catch (NumberFormatException e) {
      throw invalid(props, knob, raw, expected);
    }
    if (v < knob.min() || v > knob.max()) {
      throw invalid(props, knob, raw, expected);
    }
    return v;
  }

  private static IllegalArgumentException invalid(
      DriverProperties props, Knob knob, String value, String expected) {
    return new IllegalArgumentException("property " + props.driverPropertyName(knob.property())
        + " = \"" + value + "\" is invalid: expected " + expected + " (" + knob.name() + ")");
  }
}
