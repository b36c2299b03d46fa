package io.dyno.core.engine.internal;

import com.netflix.spectator.api.Registry;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.events.CallListener;
import io.dyno.core.events.LoggingCallListener;
import io.dyno.core.exec.internal.Engine;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.routing.Topology;
import io.dyno.core.routing.TopologyListener;
import io.dyno.core.time.Scheduler;
import io.dyno.core.time.Ticker;
import io.dyno.core.topology.NodeStateSource;
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
 * String v = engine.execute(engine.call("GET").key(key).build(), c -> c.get(key));
 * }</pre>
 *
 * The engine also notices a new topology by its {@link Topology#version()} on the next call, so
 * registering it as a {@link TopologyListener} only makes pool changes happen sooner.
 */
public interface DynoEngine<C extends NodeConnection> extends DynoExecutor<C>, TopologyListener {

  /** {@return the configuration in force now} With a live source, a later call may return another. */
  DynoConfig config();

  /**
   * {@return the Spectator registry this engine records Dyno's meters to} Their names:
   * {@link io.dyno.core.metrics.DynoMetrics}.
   */
  Registry registry();

  /**
   * {@return a text snapshot for people} The topology by rack and token, each node's health and pool,
   * the configuration; the JMX bean shows the same.
   */
  String snapshot();

  /**
   * Starts building an engine over {@code factory}'s connections.
   *
   * @param factory opens connections to nodes and classifies their failures; not null
   * @param <C> the driver's connection type
   * @return a new builder
   */
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
    private NodeStateSource nodeStates;
    private final List<CallListener.Factory> listeners = new ArrayList<>(1);

    private Builder(NodeConnectionFactory<C> factory) {
      this.factory = Objects.requireNonNull(factory, "connection factory");
    }

    /**
     * Sets a fixed configuration. Default: {@link DynoConfig#defaults()}.
     *
     * @param c the configuration; not null
     * @return this builder
     */
    public Builder<C> config(DynoConfig c) {
      Objects.requireNonNull(c, "config");
      this.config = () -> c;
      return this;
    }

    /**
     * Sets a live configuration source (e.g. {@code ArchaiusDynoConfig}), read on every call; the
     * settings in {@link DynoConfig#LIVE_SETTINGS} follow it.
     *
     * @param c the source; not null, and must never return null
     * @return this builder
     */
    public Builder<C> config(Supplier<DynoConfig> c) {
      this.config = Objects.requireNonNull(c, "config supplier");
      return this;
    }

    /**
     * Sets where the current topology snapshot comes from (required), e.g. a
     * {@code TopologyRefresher}. Read on every call: it must be cheap and thread-safe.
     *
     * @param t the source; not null
     * @return this builder
     */
    public Builder<C> topology(Supplier<Topology> t) {
      this.topology = Objects.requireNonNull(t, "topology supplier");
      return this;
    }

    /**
     * Sets the Spectator registry the engine's meters go to.
     *
     * @param r your registry, or null for a private {@code DefaultRegistry}
     * @return this builder
     */
    public Builder<C> registry(Registry r) {
      this.registry = r;
      return this;
    }

    /**
     * Sets what times background work (pool maintenance, health probes).
     *
     * @param s the scheduler, or null for one daemon thread, closed with the engine
     * @return this builder
     */
    public Builder<C> scheduler(Scheduler s) {
      this.scheduler = s;
      return this;
    }

    /**
     * Sets the engine's clock (deadlines, latencies, health decay).
     *
     * @param t the clock, or null for {@link Ticker#system()} (or the scheduler itself when it is also a
     *     {@link Ticker}, as the test clock is)
     * @return this builder
     */
    public Builder<C> ticker(Ticker t) {
      this.ticker = t;
      return this;
    }

    /**
     * Sets what runs blocking background I/O (connection opens, pings, probes).
     *
     * @param e the executor, or null for up to 8 daemon threads
     * @return this builder
     */
    public Builder<C> ioExecutor(Executor e) {
      this.ioExecutor = e;
      return this;
    }

    /**
     * Sets the jitter source of backoff and rotation.
     *
     * @param r values in [0, 1), or null for {@code ThreadLocalRandom}; called from many threads
     * @return this builder
     */
    public Builder<C> random(DoubleSupplier r) {
      this.random = r;
      return this;
    }

    /**
     * Sets how backoff waits between attempts.
     *
     * @param s the sleeper, or null for {@link Sleeper#system(Ticker)} on this engine's ticker
     * @return this builder
     */
    public Builder<C> sleeper(Sleeper s) {
      this.sleeper = s;
      return this;
    }

    /**
     * Sets where each node's Dynomite state comes from (read every {@code nodeStatePollInterval},
     * and once before the engine is returned): calls stay off a node that is not NORMAL (STANDBY
     * while it is warmed up, WRITES_ONLY, ...) while another replica can take them. Default: none
     * (a driver's client sets it: {@code DynoJedisClient} reads each node's admin port 22222); not
     * used in datastore mode.
     *
     * @param s the source, or null to read no states (nodes are judged by their connections alone)
     * @return this builder
     */
    public Builder<C> nodeStates(NodeStateSource s) {
      this.nodeStates = s;
      return this;
    }

    /**
     * Sets whether to register the JMX bean {@code io.dyno:type=DynoEngine,name=<app>} (default true).
     *
     * @param b false to register no bean (e.g. in tests that build many engines)
     * @return this builder
     */
    public Builder<C> registerMBean(boolean b) {
      this.registerMBean = b;
      return this;
    }

    /**
     * Adds a listener of every call: its candidates, each attempt (node, why, how it ended), its end
     * (see {@link CallListener}); may be called more than once. Without one calls pay nothing for
     * it. {@link LoggingCallListener#debugLog()} is added by itself when its logger is DEBUG-enabled
     * at build: one line per call saying which node served it and why.
     *
     * @param f makes a listener per call (see {@link CallListener.Factory}); not null
     * @return this builder
     */
    public Builder<C> listener(CallListener.Factory f) {
      listeners.add(Objects.requireNonNull(f, "listener factory"));
      return this;
    }

    /**
     * Starts the engine: opens pools for the topology's nodes and, when
     * {@code failOnStartupIfNoHosts} is set, fails unless one node answers within {@code startupTimeout}.
     *
     * @return the running engine; close it to stop its pools and threads
     * @throws NullPointerException when no topology source was given
     * @throws io.dyno.core.NoAvailableHostsException when {@code failOnStartupIfNoHosts} is set and
     *     no node answered within {@code startupTimeout}
     */
    public DynoEngine<C> build() {
      Objects.requireNonNull(topology, "topology supplier is required: call topology(...)");
      DynoConfig first = Objects.requireNonNull(config.get(), "config supplier returned null");
      Meters m = new Meters(registry, first.applicationName());
      List<CallListener.Factory> all = new ArrayList<>(listeners);
      if (LoggingCallListener.debugEnabled() && !all.contains(LoggingCallListener.debugLog())) {
        all.add(
            LoggingCallListener
                .debugLog()); // only when asked for: production (INFO and up) pays nothing
      }
      return Engine.start(
          factory,
          config,
          topology,
          m,
          scheduler,
          ticker,
          ioExecutor,
          random,
          sleeper,
          registerMBean,
          first.datastoreMode() ? null : nodeStates,
          all);
    }
  }
}
