package io.dyno.loadgen.drivers;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.events.CallListener;
import io.dyno.jedis.Transport;
import io.dyno.loadgen.bench.Driver;
import io.dyno.loadgen.bench.TracingMode;
import io.dyno.loadgen.target.Target;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * Creates drivers by name: {@code dyno} (the client as built by default: the multiplexed transport),
 * {@code dyno-pooled} (on pooled sockets), {@code jedis-pools}, {@code lettuce}, {@code
 * netflix-dyno} (Netflix Dyno 1.7.2, in a class loader of its own).
 */
public final class Drivers {
  /**
   * Lettuce's shared connections per node unless a variant sets {@code connections}: one, as Lettuce
   * advises, and its best here (real Dynomite 3x2, 40 threads, 3 rounds: 1.19x Jedis pools with one,
   * 1.18x with two, 1.07x with five).
   */
  static final int LETTUCE_CONNECTIONS_PER_NODE = 1;

  public static final List<String> NAMES =
      List.of("dyno", "dyno-pooled", "jedis-pools", "lettuce", "netflix-dyno");

  private Drivers() {}

  /**
   * @param connsPerNode pool size per node (Jedis, Dyno on pooled sockets, Netflix Dyno's {@code
   *     maxConnsPerHost}; the multiplexed Dyno's leases); Lettuce multiplexes: {@link
   *     #LETTUCE_CONNECTIONS_PER_NODE} unless a variant says
   */
  public static Driver create(
      String name,
      Target target,
      ConsistencyLevel consistency,
      int connsPerNode,
      Duration timeout) {
    return create(name, target, consistency, connsPerNode, timeout, DynoDriver.Options.DEFAULTS);
  }

  /**
   * As above, with a variant's client settings (hedge, deadline, muxConnections, muxWrites, tracing: Dyno
   * only; connections: Lettuce only; refused elsewhere by name). With tracing the Dyno driver's client
   * has dyno-opentelemetry's listener over its own OpenTelemetry SDK ({@link BenchTracing}).
   */
  public static Driver create(
      String name,
      Target target,
      ConsistencyLevel consistency,
      int connsPerNode,
      Duration timeout,
      DynoDriver.Options options) {
    if (!name.startsWith("dyno")) {
      requireDefault(name, "hedge", !"off".equalsIgnoreCase(options.hedge()));
      requireDefault(name, "deadline", options.deadline() != null);
      requireDefault(name, "muxConnections", options.muxConnections() != 0);
      requireDefault(name, "muxWrites", options.muxWrites() >= 0);
      requireDefault(name, "tracing", options.tracing() != TracingMode.OFF);
    } else if (name.equals("dyno-pooled")) {
      requireDefault(
          name, "muxConnections (multiplexed transport only: dyno)", options.muxConnections() != 0);
      requireDefault(
          name, "muxWrites (multiplexed transport only: dyno)", options.muxWrites() >= 0);
    }
    if (!name.equals("lettuce")) {
      requireDefault(
          name,
          "connections (Lettuce's shared connections per node; Dyno's: muxConnections)",
          options.lettuceConnections() != 0);
    }
    switch (name) {
      case "dyno-pooled":
        return traced(
            options.tracing(),
            listener -> new DynoDriver(
                () -> target.hosts(),
                () -> target.tokens(),
                target.localRack(),
                consistency,
                connsPerNode,
                timeout,
                new DefaultRegistry(),
                null,
                Transport.POOLED,
                options,
                listener));
      case "dyno":
        return traced(
            options.tracing(),
            listener -> new DynoDriver(
                () -> target.hosts(),
                () -> target.tokens(),
                target.localRack(),
                consistency,
                Math.max(connsPerNode, 256),
                timeout,
                new DefaultRegistry(),
                null,
                Transport.MULTIPLEXED,
                options,
                listener));
      case "jedis-pools":
      case "jedis":
        requireDcOne(name, consistency);
        return new JedisPoolsDriver(target.hosts(), connsPerNode, timeout);
      case "netflix-dyno":
        requireDcOne(name, consistency);
        return new NetflixDynoDriver(target.tokens(), target.localRack(), connsPerNode, timeout);
      case "lettuce":
        requireDcOne(name, consistency);
        return new LettuceDriver(
            target.hosts(),
            options.lettuceConnections() > 0
                ? options.lettuceConnections()
                : LETTUCE_CONNECTIONS_PER_NODE,
            timeout);
      default:
        throw new IllegalArgumentException("unknown driver \"" + name + "\"; known: " + NAMES
            + " (and redis-benchmark in comparisons)"
            + (name.equals("dyno-mux")
                ? "; dyno-mux is now dyno, the multiplexed transport being the client's default"
                : ""));
    }
  }

  /** The Dyno driver {@code create} builds with the listener it is given (null: none), traced per {@code mode}. */
  private static Driver traced(
      TracingMode mode, Function<CallListener.Factory, DynoDriver> create) {
    if (mode == TracingMode.OFF) {
      return create.apply(null);
    }
    BenchTracing tracing = new BenchTracing(mode);
    try {
      return new TracedDriver(create.apply(tracing.listenerFactory()), tracing);
    } catch (RuntimeException e) {
      tracing.close();
      throw e;
    }
  }

  private static void requireDefault(String driver, String setting, boolean set) {
    if (set) {
      throw new IllegalArgumentException("driver " + driver + ": setting " + setting
          + " is a Dyno client setting;" + " " + driver + " has no such thing");
    }
  }

  private static void requireDcOne(String name, ConsistencyLevel c) {
    if (c != ConsistencyLevel.DC_ONE) {
      throw new IllegalArgumentException(
          "driver " + name + ": consistency " + c
              + " is only available with the dyno driver here (plain clients use the server's default, DC_ONE)");
    }
  }
}
