package io.dyno.jedis;

import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Registry;
import io.dyno.core.DynoException;
import io.dyno.core.HostSupplier;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.TokenMapSupplier;
import io.dyno.core.config.DriverProperties;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.engine.internal.DynoEngine;
import io.dyno.core.engine.internal.DynoExecutor;
import io.dyno.core.engine.internal.NodeConnectionFactory;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.routing.Topology;
import io.dyno.core.time.Ticker;
import io.dyno.core.topology.HashtagSource;
import io.dyno.core.topology.Locality;
import io.dyno.core.topology.TopologyRefresher;
import io.dyno.core.topology.TopologySupplier;
import io.dyno.jedis.internal.ClientCore;
import io.dyno.jedis.internal.CommandTable;
import io.dyno.jedis.internal.CompressionSettings;
import io.dyno.jedis.internal.DynoCommandExecutor;
import io.dyno.jedis.internal.HashtagProbe;
import io.dyno.jedis.internal.JedisConnectionFactory;
import io.dyno.jedis.internal.JedisNodeConnection;
import io.dyno.jedis.internal.MuxTransport;
import io.dyno.jedis.internal.Planner;
import io.dyno.jedis.internal.ShadowWriter;
import io.dyno.jedis.internal.StartupChecks;
import io.dyno.jedis.internal.TransportSettings;
import io.dyno.jedis.internal.ValueCodec;
import io.dyno.jedis.internal.mux.MuxSettings;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.UnifiedJedis;

/**
 * Starts a {@link DynoJedisClient} from what its builder was told: the configuration pinned to the
 * client's name and mode, the transport, the topology refresher and dyno-core's engine, the shadow
 * writer and the command planner. A failure on the way closes what was already started, and names
 * the client and the setting at fault.
 */
final class ClientAssembly {
  private ClientAssembly() {}

  static DynoJedisClient build(ClientSettings s) {
    Supplier<DynoConfig> source = s.config != null ? s.config : DynoConfig::defaults;
    DynoConfig first = Objects.requireNonNull(source.get(), "config source returned null");
    String app = s.applicationName != null ? s.applicationName : first.applicationName();
    boolean datastore = s.datastoreMode != null ? s.datastoreMode : first.datastoreMode();
    PinnedConfig live = new PinnedConfig(source, app, datastore);
    DynoConfig cfg = live.get();
    if (cfg.datastoreMode() && s.defaults.consistency() != null) {
      throw new IllegalArgumentException("DynoJedisClient " + app + ": a consistency level ("
          + s.defaults.consistency() + ") has no meaning in datastore mode");
    }
    if (!cfg.datastoreMode()
        && (s.datastorePassword != null || s.datastoreUser != null || s.datastoreDatabase != 0)) {
      throw new IllegalArgumentException(
          "DynoJedisClient " + app + ": datastorePassword, datastoreUser and"
              + " datastoreDatabase apply only in datastore mode (straight to Redis): Dynomite's client port does not"
              + " accept AUTH or SELECT (it closes the connection). Set datastoreMode(true) or remove them");
    }
    DriverProperties props = source instanceof DriverProperties p ? p : null;
    // Every setting is read and checked before anything is started.
    Planner planner = planner(s, cfg, props);
    TransportSettings.Values wire = wire(s, props);
    // One registry for the engine's meters and the transport's (made before the engine).
    Registry meterRegistry = s.registry != null ? s.registry : new DefaultRegistry();
    // One clock for the engine's deadlines and the transport's timeouts, which bound each other.
    Ticker ticker = Ticker.system();
    // dyno-core's engine already connects to Host.datastorePort() in datastore mode.
    JedisConnectionFactory connections =
        new JedisConnectionFactory(new JedisConnectionFactory.Datastore(
            cfg.datastoreMode(), s.datastoreUser, s.datastorePassword, s.datastoreDatabase, s.tls));
    MuxTransport mux = wire.multiplexed()
        ? muxTransport(s, app, cfg, connections, meterRegistry, ticker, wire)
        : null;
    NodeConnectionFactory<JedisNodeConnection> nodeConnections = mux != null ? mux : connections;
    AutoCloseable transportClose = mux != null ? mux : () -> {};
    DynoExecutor<JedisNodeConnection> dyno;
    TopologyRefresher ownedRefresher = null;
    try {
      TopologyRefresher refresher = s.topologySupplier == null ? refresher(s, app, cfg) : null;
      Supplier<Topology> topology = refresher != null ? refresher::current : s.topologySupplier;
      try {
        DynoEngine.Builder<JedisNodeConnection> engineBuilder = DynoEngine.builder(nodeConnections)
            .config(live)
            .topology(topology)
            .registry(meterRegistry)
            .ticker(ticker)
            .nodeStates(s.nodeStates);
        s.eventListeners.forEach(engineBuilder::listener);
        DynoEngine<JedisNodeConnection> engine;
        try {
          engine = engineBuilder.build();
        } catch (NoAvailableHostsException e) {
          throw StartupChecks.noNodeAnswered(app, e, s.hostSupplier, s.tokenMapSupplier);
        }
        if (refresher != null) {
          refresher.addListener(engine);
          // The first refresh ran before the engine existed; record it, then every later one.
          Meters meters = new Meters(engine.registry(), app);
          meters.topologyRefresh(refresher.status().healthy());
          refresher.addRefreshObserver(status -> meters.topologyRefresh(status.healthy()));
          ownedRefresher = refresher;
          try {
            probeHashtag(s, app, cfg, refresher, connections);
          } catch (RuntimeException e) {
            engine.close();
            throw e;
          }
        }
        dyno = engine;
      } catch (RuntimeException e) {
        if (refresher != null) {
          refresher.close();
        }
        throw e;
      }
    } catch (Exception e) {
      try {
        transportClose.close();
      } catch (Exception closing) {
        e.addSuppressed(closing);
      }
      if (e instanceof RuntimeException r) {
        throw r;
      }
      throw new DynoException("DynoJedisClient " + app + ": could not start: " + e.getMessage(), e);
    }
    AutoCloseable shadowClose = s.shadow != null ? s.shadow : () -> {};
    AutoCloseable refresherClose = ownedRefresher != null ? ownedRefresher : () -> {};
    ClientCore core = new ClientCore(
        app,
        dyno,
        planner,
        shadowWriter(s),
        mux != null ? (BooleanSupplier) mux::onTransportThread : null,
        ApiExceptions.INSTANCE,
        refresherClose,
        shadowClose,
        transportClose);
    return new DynoJedisClient(new DynoCommandExecutor(core, s.defaults, true), false);
  }

  /**
   * TLS given only as a socket factory can be used by pooled sockets alone (the multiplexed
   * transport's connections need an SSLEngine): then pooled is the default; chosen explicitly,
   * MULTIPLEXED refuses it by name.
   */
  private static TransportSettings.Values wire(ClientSettings s, DriverProperties props) {
    boolean byDefault =
        !(s.tls != null && s.tls.context() == null && s.tls.socketFactory() != null);
    return TransportSettings.resolve(
        s.transport == null ? null : s.transport == Transport.MULTIPLEXED,
        s.muxConnectionsPerNode,
        s.muxMaxInFlight,
        s.muxMaxWritesInFlight,
        s.muxMaxBulkBytes,
        props,
        byDefault);
  }

  private static MuxTransport muxTransport(
      ClientSettings s,
      String app,
      DynoConfig cfg,
      JedisConnectionFactory connections,
      Registry meterRegistry,
      Ticker ticker,
      TransportSettings.Values wire) {
    // A full connection is waited for like an exhausted pool (the value at build). AUTH and
    // SELECT: per node, from the datastore settings.
    MuxSettings mux = MuxSettings.builder()
        .maxInFlight(wire.maxInFlight())
        .maxWritesInFlight(wire.maxWritesInFlight())
        .maxBulkBytes(wire.maxBulkBytes())
        .inFlightWait(cfg.maxTimeoutWhenExhausted())
        .ticker(ticker)
        .build();
    return new MuxTransport(
        connections,
        mux,
        wire.connectionsPerNode(),
        2,
        app,
        new Meters(meterRegistry, app),
        s.tls == null ? null : s.tls.engineContext(),
        s.tls != null && s.tls.verifyHostname(),
        cfg.datastoreMode());
  }

  /** Routing, refusals and compression; compression may come from a property source (Archaius) under Dyno's names. */
  private static Planner planner(ClientSettings s, DynoConfig cfg, DriverProperties props) {
    int threshold = s.compressionThreshold != null
        ? s.compressionThreshold
        : props != null ? CompressionSettings.threshold(props) : 0;
    Set<CompressedFormat> read = s.readCompressed == null ? Set.of() : s.readCompressed;
    ValueCodec codec = new ValueCodec(
        threshold,
        s.maxDecompressedSize,
        read.contains(CompressedFormat.DYNO),
        read.contains(CompressedFormat.NETFLIX_DYNO));
    CommandTable table = new CommandTable(
        cfg.datastoreMode() ? CommandTable.Mode.DATASTORE : CommandTable.Mode.DYNOMITE,
        ApiExceptions.INSTANCE);
    return new Planner(table, codec);
  }

  private static ShadowWriter shadowWriter(ClientSettings s) {
    if (s.shadow == null) {
      return null;
    }
    UnifiedJedis target = s.shadow;
    // qualified: clashes with DynoJedisClientBuilder
    redis.clients.jedis.Builder<Object> raw = new redis.clients.jedis.Builder<>() {
      @Override
      public Object build(Object data) {
        return data;
      }
    };
    return new ShadowWriter(
        s.shadowPercent,
        s.shadowQueueCapacity,
        args -> target.executeCommand(new CommandObject<>(args, raw)));
  }

  /**
   * Asks the cluster whether it hashes by the client's hash tag ({@link HashtagProbe}), unless the
   * token source reported the cluster's tag (the refresher then compared them), the client talks
   * to Redis directly, or no node is known yet. The probe has a connection of its own.
   */
  private static void probeHashtag(
      ClientSettings s,
      String app,
      DynoConfig cfg,
      TopologyRefresher refresher,
      JedisConnectionFactory connections) {
    Topology first = refresher.current();
    if (cfg.datastoreMode() || first.hosts().isEmpty()) {
      return;
    }
    for (Object source : new Object[] {s.hostSupplier, s.tokenMapSupplier}) {
      if (source instanceof HashtagSource h
          && h.clusterHashtag() != null
          && !h.clusterHashtag().isEmpty()) {
        return;
      }
    }
    HashtagProbe.check(app, first, (node, command) -> {
      JedisNodeConnection c =
          connections.open(node.host(), cfg.connectTimeout(), cfg.socketTimeout());
      try {
        return c.execute(command);
      } finally {
        c.close();
      }
    });
  }

  /** dyno-core's refresher over the host and token suppliers, started: the first topology read and checked. */
  private static TopologyRefresher refresher(ClientSettings s, String app, DynoConfig cfg) {
    HostSupplier hosts = s.hostSupplier;
    TokenMapSupplier tokens = s.tokenMapSupplier;
    // A source that knows hosts and tokens at once (cluster_describe) may be given once, either
    // way.
    if (hosts == null && tokens instanceof TopologySupplier both) {
      hosts = both;
    } else if (tokens == null && hosts instanceof TopologySupplier both) {
      tokens = both;
    }
    if (hosts == null || tokens == null) {
      throw new IllegalArgumentException(
          "DynoJedisClient " + app + ": no " + (hosts == null ? "hostSupplier" : "tokenMapSupplier")
              + ". The simplest: tokenMapSupplier("
              + "ClusterDescribeTokenMapSupplier.builder().endpoint(\"http://<node>:22222/cluster_describe\").build()),"
              + " which is the host source too; or give a HostSupplier and a TokenMapSupplier, or topology(...)");
    }
    Locality locality = Locality.resolve(s.localRack, s.localDatacenter, s.environment);
    TopologyRefresher r = TopologyRefresher.builder()
        .hostSupplier(hosts)
        .tokenMapSupplier(tokens)
        .hashtag(s.hashtag)
        .locality(locality)
        .rackAffinity(cfg.localZoneAffinity())
        .period(s.refreshPeriod)
        .build();
    try {
      String sources = hosts == tokens ? String.valueOf(hosts) : hosts + " and " + tokens;
      StartupChecks.firstTopology(app, cfg, r, r.start(), sources);
      // Only a rack the application named is held to the cluster; one from LOCAL_RACK or the EC2
      // zone may be a zone without nodes (a warning, and requests spread, as before).
      if (s.localRack != null && !s.localRack.isBlank() && !s.allowUnknownLocalRack) {
        StartupChecks.localRack(app, r.current(), locality.rack(), locality.datacenter());
      }
    } catch (RuntimeException e) {
      r.close();
      throw e;
    }
    return r;
  }
}
