package io.dyno.core.exec;

import com.netflix.spectator.api.Registry;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.events.CallListener;
import io.dyno.core.events.LoggingCallListener;
import io.dyno.core.exec.internal.Engine;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.routing.Topology;
import io.dyno.core.routing.TopologyListener;
import io.dyno.core.spi.NodeConnection;
import io.dyno.core.spi.NodeConnectionFactory;
import io.dyno.core.time.Scheduler;
import io.dyno.core.time.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;

/**
 * The engine: per-node pools, execution with retries and failover, node health, consistency and
 * metrics, behind {@link DynoExecutor}. Build one per client:
 *
 * <pre>{@code
 * DynoEngine<MyConn> engine = DynoEngine.builder(connectionFactory)
 *     .config(DynoConfig.builder().maxConnsPerHost(16).build())   // or .config(Supplier<DynoConfig>)
 *     .topology(refresher::current)                               // any Supplier<Topology>
 *     .registry(spectatorRegistry)                                // optional
 *     .listener(() -> new MyCallListener())                       // optional: every call's attempts
 *     .build();
 * refresher.addListener(engine);   // optional: pools follow topology changes at once
 * String v = engine.execute("GET", key, true, CallOptions.defaults(), c -> c.get(key));
 * }</pre>
 *
 * The engine also notices a new topology by its {@link Topology#version()} on the next call, so
 * registering it as a {@link TopologyListener} only makes pool changes happen sooner.
 */
public interface DynoEngine<C extends NodeConnection> extends DynoExecutor<C>, TopologyListener {

  /** The configuration in force now. */
  DynoConfig config();

  /** The Spectator registry this engine records Dyno's meters to (their names: {@link io.dyno.core.metrics.DynoMetrics}). */
  com.netflix.spectator.api.Registry registry();

  /** A text snapshot for people: topology by rack and token, each node's health and pool, the configuration. */
  String snapshot();

  static <C extends NodeConnection> Builder<C> builder(NodeConnectionFactory<C> factory) {
    return new Builder<>(factory);
  }

  /** Builds a {@link DynoEngine}. Only the factory and the topology are required. */
  final class Builder<C extends NodeConnection> {
    private final NodeConnectionFactory<C> factory;
    private Supplier<DynoConfig> config = DynoConfig::defaults;
    private Supplier<Topology> topology;
    private Registry registry;
    private Scheduler scheduler;
    private Ticker ticker;
    private Executor ioExecutor;
    private DoubleSupplier random;
    private Sleeper sleeper;
    private boolean registerMBean = true;
    private final List<CallListener.Factory> listeners = new ArrayList<>(1);

    private Builder(NodeConnectionFactory<C> factory) {
      this.factory = Objects.requireNonNull(factory, "connection factory");
    }

    public Builder<C> config(DynoConfig c) {
      Objects.requireNonNull(c, "config");
      this.config = () -> c;
      return this;
    }

    /** A live configuration source (e.g. {@code ArchaiusDynoConfig}); read on every call. */
    public Builder<C> config(Supplier<DynoConfig> c) {
      this.config = Objects.requireNonNull(c, "config supplier");
      return this;
    }

    /** Where the current topology snapshot comes from (required). */
    public Builder<C> topology(Supplier<Topology> t) {
      this.topology = Objects.requireNonNull(t, "topology supplier");
      return this;
    }

    /** The user's Spectator registry; a private {@code DefaultRegistry} when not given. */
    public Builder<C> registry(Registry r) {
      this.registry = r;
      return this;
    }

    /** Background timing (maintenance, health probes). Default: one daemon thread, closed with the engine. */
    public Builder<C> scheduler(Scheduler s) {
      this.scheduler = s;
      return this;
    }

    /** Default: {@link Ticker#system()}, or the scheduler itself when it is also a {@link Ticker} (as the test clock is). */
    public Builder<C> ticker(Ticker t) {
      this.ticker = t;
      return this;
    }

    /** Runs blocking background I/O (connection opens, pings, probes). Default: up to 8 daemon threads. */
    public Builder<C> ioExecutor(Executor e) {
      this.ioExecutor = e;
      return this;
    }

    /** Jitter source, values in [0, 1). Default: {@code ThreadLocalRandom}. */
    public Builder<C> random(DoubleSupplier r) {
      this.random = r;
      return this;
    }

    /** How backoff waits. Default: {@link Sleeper#system(Ticker)} on this engine's ticker. */
    public Builder<C> sleeper(Sleeper s) {
      this.sleeper = s;
      return this;
    }

    /** Whether to register the JMX bean {@code io.dyno:type=DynoEngine,name=<app>} (default true). */
    public Builder<C> registerMBean(boolean b) {
      this.registerMBean = b;
      return this;
    }

    /**
     * Adds a listener of every call: its candidates, each attempt (node, why, how it ended), its end
     * (see {@link CallListener}); may be called more than once. Without one calls pay nothing for
     * it. {@link LoggingCallListener#debugLog()} is added by itself when its logger is DEBUG-enabled
     * at build: one line per call saying which node served it and why.
     */
    public Builder<C> listener(CallListener.Factory f) {
      listeners.add(Objects.requireNonNull(f, "listener factory"));
      return this;
    }

    /**
     * Starts the engine: opens pools for the topology's nodes and, when
     * {@code failOnStartupIfNoHosts} is set, fails unless one node answers within {@code startupTimeout}.
     */
    public DynoEngine<C> build() {
      Objects.requireNonNull(topology, "topology supplier is required: call topology(...)");
      DynoConfig first = Objects.requireNonNull(config.get(), "config supplier returned null");
      Meters m = new Meters(registry, first.applicationName());
      List<CallListener.Factory> all = new ArrayList<>(listeners);
      if (LoggingCallListener.debugEnabled() && !all.contains(LoggingCallListener.debugLog())) {
        all.add(LoggingCallListener.debugLog()); // only when asked for: production (INFO and up) pays nothing
      }
      return Engine.start(factory, config, topology, m, scheduler, ticker, ioExecutor, random, sleeper,
          registerMBean, all);
    }
  }
}
