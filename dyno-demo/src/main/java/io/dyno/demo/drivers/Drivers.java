package io.dyno.demo.drivers;

import io.dyno.core.ConsistencyLevel;
import io.dyno.demo.bench.Driver;
import io.dyno.demo.target.Target;
import java.time.Duration;
import java.util.List;

/** Creates drivers by name: {@code dyno}, {@code dyno-mux} (the multiplexed transport), {@code jedis-pools}, {@code lettuce}. */
public final class Drivers {
  public static final List<String> NAMES = List.of("dyno", "dyno-mux", "jedis-pools", "lettuce");

  private Drivers() {}

  /**
   * @param connsPerNode pool size per node (Jedis, Dyno); Lettuce multiplexes, so it opens
   *     {@code max(1, connsPerNode / 8)} connections per node
   */
  public static Driver create(String name, Target target, ConsistencyLevel consistency, int connsPerNode, Duration timeout) {
    return create(name, target, consistency, connsPerNode, timeout, DynoDriver.Options.DEFAULTS);
  }

  /**
   * As above, with a variant's client settings (hedge, deadline, muxConnections, muxWrites: Dyno only;
   * connections: Lettuce only; refused elsewhere by name).
   */
  public static Driver create(String name, Target target, ConsistencyLevel consistency, int connsPerNode, Duration timeout,
      DynoDriver.Options options) {
    if (!name.startsWith("dyno")) {
      requireDefault(name, "hedge", !"off".equalsIgnoreCase(options.hedge()));
      requireDefault(name, "deadline", options.deadline() != null);
      requireDefault(name, "muxConnections", options.muxConnections() != 0);
      requireDefault(name, "muxWrites", options.muxWrites() >= 0);
    } else if (name.equals("dyno")) {
      requireDefault(name, "muxConnections (multiplexed transport only: dyno-mux)", options.muxConnections() != 0);
      requireDefault(name, "muxWrites (multiplexed transport only: dyno-mux)", options.muxWrites() >= 0);
    }
    if (!name.equals("lettuce")) {
      requireDefault(name, "connections (Lettuce's shared connections per node; Dyno's: muxConnections)",
          options.lettuceConnections() != 0);
    }
    switch (name) {
      case "dyno":
        return new DynoDriver(() -> target.hosts(), () -> target.tokens(), target.localRack(), consistency, connsPerNode,
            timeout, new com.netflix.spectator.api.DefaultRegistry(), null, io.dyno.jedis.Transport.POOLED, options);
      case "dyno-mux":
        return new DynoDriver(() -> target.hosts(), () -> target.tokens(), target.localRack(), consistency,
            Math.max(connsPerNode, 256), timeout, new com.netflix.spectator.api.DefaultRegistry(), null,
            io.dyno.jedis.Transport.MULTIPLEXED, options);
      case "jedis-pools":
      case "jedis":
        requireDcOne(name, consistency);
        return new JedisPoolsDriver(target.hosts(), connsPerNode, timeout);
      case "lettuce":
        requireDcOne(name, consistency);
        return new LettuceDriver(target.hosts(),
            options.lettuceConnections() > 0 ? options.lettuceConnections() : Math.max(1, connsPerNode / 8), timeout);
      default:
        throw new IllegalArgumentException("unknown driver \"" + name + "\"; known: " + NAMES + " (and redis-benchmark in comparisons)");
    }
  }

  private static void requireDefault(String driver, String setting, boolean set) {
    if (set) {
      throw new IllegalArgumentException("driver " + driver + ": setting " + setting + " is a Dyno client setting;"
          + " " + driver + " has no such thing");
    }
  }

  private static void requireDcOne(String name, ConsistencyLevel c) {
    if (c != ConsistencyLevel.DC_ONE) {
      throw new IllegalArgumentException("driver " + name + ": consistency " + c
          + " is only available with the dyno driver here (plain clients use the server's default, DC_ONE)");
    }
  }
}
