package io.dyno.jedis;

import com.netflix.spectator.api.Registry;
import io.dyno.core.HostSupplier;
import io.dyno.core.TokenMapSupplier;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.events.CallListener;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.routing.Topology;
import io.dyno.core.topology.NodeStateSource;
import io.dyno.core.topology.TopologyRefresher;
import io.dyno.jedis.internal.JedisConnectionFactory;
import io.dyno.jedis.internal.ValueCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import redis.clients.jedis.UnifiedJedis;

/**
 * What a {@link DynoJedisClientBuilder} was told, as its methods checked it; {@link ClientAssembly}
 * starts the client from it. A null field is "not set": the configuration's value or the default.
 */
final class ClientSettings {
  String applicationName;
  HostSupplier hostSupplier;
  TokenMapSupplier tokenMapSupplier;
  Supplier<Topology> topologySupplier;
  String localRack;
  String localDatacenter;
  boolean allowUnknownLocalRack;
  Function<String, String> environment = System::getenv;
  String hashtag;
  Supplier<DynoConfig> config;
  Boolean datastoreMode;
  Registry registry;
  String datastoreUser;
  String datastorePassword;
  int datastoreDatabase;
  JedisConnectionFactory.Tls tls;
  Integer compressionThreshold;
  Set<CompressedFormat> readCompressed;
  int maxDecompressedSize = ValueCodec.DEFAULT_MAX_DECOMPRESSED_SIZE;
  UnifiedJedis shadow;
  double shadowPercent;
  int shadowQueueCapacity = 10_000;
  CallOptions defaults = CallOptions.defaults();
  Duration refreshPeriod = TopologyRefresher.DEFAULT_PERIOD;
  // The transport's five: null = the property source's value, else the default.
  Transport transport;
  Integer muxConnectionsPerNode;
  Integer muxMaxInFlight;
  Integer muxMaxWritesInFlight;
  Integer muxMaxBulkBytes;
  final List<CallListener.Factory> eventListeners = new ArrayList<>(1);
  NodeStateSource nodeStates; // null: no states read (DynoJedisClientBuilder#nodeStates)

  void shadow(UnifiedJedis client, double percent, int queueCapacity) {
    shadow = Objects.requireNonNull(client, "shadowClient");
    if (percent < 0 || percent > 100) {
      throw new IllegalArgumentException("shadow percent must be within 0..100, was " + percent);
    }
    shadowPercent = percent;
    shadowQueueCapacity = atLeast(queueCapacity, 1, "shadow queueCapacity");
  }

  static String notBlank(String value, String setting) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(setting + " must not be empty");
    }
    return value;
  }

  static int atLeast(int value, int min, String setting) {
    if (value < min) {
      throw new IllegalArgumentException(setting + " must be >= " + min + ", was " + value);
    }
    return value;
  }

  static Duration positive(Duration d, String setting) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(setting + " must be positive, was " + d);
    }
    return d;
  }
}
