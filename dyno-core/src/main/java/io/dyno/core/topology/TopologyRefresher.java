package io.dyno.core.topology;

import io.dyno.core.HostSupplier;
import io.dyno.core.TokenMapSupplier;
import io.dyno.core.routing.KeyHasher;
import io.dyno.core.routing.TokenRingTopology;
import io.dyno.core.routing.Topology;
import io.dyno.core.routing.TopologyException;
import io.dyno.core.routing.TopologyListener;
import io.dyno.core.time.Scheduler;
import io.dyno.core.time.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Holds the current {@link Topology} and keeps it fresh.
 *
 * <p>Each refresh asks the host source and re-reads the token map (every time, not only when
 * membership changes), builds a new {@link TokenRingTopology} and, if it routes differently from
 * the current one, swaps it in atomically and then tells the {@link TopologyListener}s. Nodes and
 * racks that appear become routable; nodes that leave stop being routed to.
 *
 * <p>A source that fails, or gives a topology that cannot be served, leaves the current topology in
 * place. The problem is logged once (WARN, with the reason) when refreshes start failing, not on
 * every period while it lasts; the recovery is logged once too. {@link #status()} always has the
 * latest outcome, for metrics.
 *
 * <p>Refreshes run on the injected {@link Scheduler} every {@code period} (default 30 s) and on
 * demand ({@link #refreshNow()} on the caller's thread, {@link #requestRefresh()} in the
 * background). Refreshes never overlap.
 */
public final class TopologyRefresher implements Supplier<Topology>, AutoCloseable {
  /** Time between periodic refreshes unless {@link Builder#period(Duration)} says otherwise: 30 s. */
  public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(30);

  private final HostSupplier hostSupplier;
  private final TokenMapSupplier tokenMapSupplier;
  private final Scheduler scheduler;
  private final boolean ownsScheduler;
  private final Duration period;
  private final Report report;
  private final RefreshRunner runner;
  private final List<TopologyListener> listeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<RefreshStatus>> refreshObservers = new CopyOnWriteArrayList<>();
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Scheduler.Cancellable periodic;

  private TopologyRefresher(Builder b) {
    this.hostSupplier = b.hostSupplier;
    this.tokenMapSupplier = b.tokenMapSupplier;
    this.ownsScheduler = b.scheduler == null;
    this.scheduler = ownsScheduler ? Scheduler.daemon("dyno-topology-refresh") : b.scheduler;
    Ticker ticker = b.ticker != null
        ? b.ticker
        : scheduler instanceof Ticker ? (Ticker) scheduler : Ticker.system();
    this.period = b.period;
    this.report = b.report;
    this.listeners.addAll(b.listeners);
    TopologyReader reader =
        new TopologyReader(hostSupplier, tokenMapSupplier, b.hasher, b.locality, b.rackAffinity);
    this.runner = new RefreshRunner(reader, ticker, period, report, listeners, closed::get);
  }

  /** {@return a new builder; host source and token map must be given} */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Refreshes once on the calling thread, then every period on the scheduler. Returns the outcome
   * of that first refresh (a failure leaves the empty topology; later refreshes keep trying).
   * Calling it again does nothing but return the current status.
   *
   * @return the outcome of the first refresh
   * @throws IllegalStateException when the refresher is closed
   */
  public RefreshStatus start() {
    if (closed.get()) {
      throw new IllegalStateException("TopologyRefresher is closed");
    }
    if (!started.compareAndSet(false, true)) {
      return runner.status();
    }
    RefreshStatus first = refreshNow();
    periodic = scheduler.scheduleAtFixedRate(this::refreshNow, period, period);
    return first;
  }

  /** {@return the topology in use} Never null: empty until the first successful refresh. */
  public Topology current() {
    return runner.current();
  }

  /** {@return the topology in use, as {@link #current()}} */
  @Override
  public Topology get() {
    return runner.current();
  }

  /** {@return the outcome of the latest refresh} {@link RefreshStatus#healthy()} is false before the first. */
  public RefreshStatus status() {
    return runner.status();
  }

  /**
   * Why the latest refresh failed, or null when it succeeded (or none ran yet). Its type tells a
   * source that could not be reached from one that answered with something unusable
   * ({@link UnusableAnswerException}, {@link TopologyException}); {@link #status()} has its text.
   *
   * @return the latest refresh's failure, or null
   */
  public Throwable lastFailure() {
    return runner.lastFailure();
  }

  /**
   * Tells {@code listener} of every topology swapped in from now on, on the thread that refreshed,
   * after the swap. Thread-safe.
   *
   * @param listener the listener; not null
   */
  public void addListener(TopologyListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Stops telling {@code listener}; nothing happens if it was not added.
   *
   * @param listener the listener to remove
   */
  public void removeListener(TopologyListener listener) {
    listeners.remove(listener);
  }

  /**
   * Tells {@code observer} the outcome of every refresh, failed or not (for metrics such as
   * {@code dyno.topology.refresh}), on the thread that refreshed. An observer that throws is logged
   * and ignored.
   *
   * @param observer the observer; not null
   */
  public void addRefreshObserver(Consumer<RefreshStatus> observer) {
    refreshObservers.add(Objects.requireNonNull(observer, "observer"));
  }

  /** Refreshes in the background as soon as possible (e.g. after errors that hint at a changed cluster). */
  public void requestRefresh() {
    if (!closed.get()) {
      scheduler.execute(this::refreshNow);
    }
  }

  /**
   * Refreshes on the calling thread. Never throws for source problems: they are in the outcome.
   *
   * @return the outcome of this refresh
   */
  public RefreshStatus refreshNow() {
    RefreshStatus outcome = runner.refresh();
    for (Consumer<RefreshStatus> observer : refreshObservers) {
      try {
        observer.accept(outcome);
      } catch (RuntimeException e) {
        report.warn(
            "topology refresh observer " + observer + " failed: " + RefreshRunner.describe(e), e);
      }
    }
    return outcome;
  }

  /** Stops refreshing (and the scheduler, if this refresher created it). Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    Scheduler.Cancellable p = periodic;
    if (p != null) {
      p.cancel();
    }
    if (ownsScheduler) {
      scheduler.close();
    }
  }

  @Override
  public String toString() {
    return "TopologyRefresher{hosts=" + hostSupplier + ", tokens=" + tokenMapSupplier + ", every "
        + period + "}";
  }

  /** Where refresh problems go; slf4j by default, replaceable in tests to count reports. */
  interface Report {
    void warn(String message, Throwable cause);

    void info(String message);

    void debug(String message);
  }

  /** Configures a refresher. Host source and token map are required (one {@link TopologySupplier} may be both). */
  public static final class Builder {
    private HostSupplier hostSupplier;
    private TokenMapSupplier tokenMapSupplier;
    private KeyHasher hasher = KeyHasher.noHashtag();
    private Locality locality = Locality.resolve(null, null);
    private boolean rackAffinity = true;
    private Scheduler scheduler;
    private Ticker ticker;
    private Duration period = DEFAULT_PERIOD;
    private Report report = new Slf4jRefreshReport();
    private final List<TopologyListener> listeners = new CopyOnWriteArrayList<>();

    private Builder() {}

    /**
     * Sets the source of the nodes and their status. Required (or {@link #topologySupplier}).
     *
     * @param s the host source; not null
     * @return this builder
     */
    public Builder hostSupplier(HostSupplier s) {
      this.hostSupplier = Objects.requireNonNull(s, "hostSupplier");
      return this;
    }

    /**
     * Sets the source of each node's token. Required (or {@link #topologySupplier}).
     *
     * @param s the token map; not null
     * @return this builder
     */
    public Builder tokenMapSupplier(TokenMapSupplier s) {
      this.tokenMapSupplier = Objects.requireNonNull(s, "tokenMapSupplier");
      return this;
    }

    /**
     * Sets one source for both hosts and tokens (static map, cluster_describe).
     *
     * @param s the source; not null
     * @return this builder
     */
    public Builder topologySupplier(TopologySupplier s) {
      return hostSupplier(s).tokenMapSupplier(s);
    }

    /**
     * Sets how keys are hashed (hash tag included). Default: no hash tag.
     *
     * @param h the hasher; not null
     * @return this builder
     */
    public Builder hasher(KeyHasher h) {
      this.hasher = Objects.requireNonNull(h, "hasher");
      return this;
    }

    /**
     * The cluster's hash tag, e.g. {@code "{}"}; null or empty for none. When the token map is a
     * {@link HashtagSource} that reports a tag, an unset tag takes the cluster's and a different
     * one fails the refresh with a clear error.
     *
     * @param hashtag two characters such as {@code "{}"}, or null or empty for none
     * @return this builder
     */
    public Builder hashtag(String hashtag) {
      return hasher(KeyHasher.forHashtag(hashtag));
    }

    /**
     * Sets where this client runs. Default: {@link Locality#resolve} of the environment only.
     *
     * @param l the rack and datacenter; not null
     * @return this builder
     */
    public Builder locality(Locality l) {
      this.locality = Objects.requireNonNull(l, "locality");
      return this;
    }

    /**
     * Whether requests prefer the local rack (default, DynoConfig's {@code localZoneAffinity}); false
     * spreads them evenly over the racks of the local datacenter.
     *
     * @param preferLocalRack false to spread requests over the local datacenter's racks
     * @return this builder
     */
    public Builder rackAffinity(boolean preferLocalRack) {
      this.rackAffinity = preferLocalRack;
      return this;
    }

    /**
     * Sets what runs periodic refreshes. Default: a daemon scheduler owned (and closed) by the
     * refresher; one given here is not closed by it.
     *
     * @param s the scheduler; not null
     * @return this builder
     */
    public Builder scheduler(Scheduler s) {
      this.scheduler = Objects.requireNonNull(s, "scheduler");
      return this;
    }

    /**
     * Sets the clock of {@link RefreshStatus}'s times. Default: the scheduler if it is a
     * {@link Ticker}, else the system clock.
     *
     * @param t the clock; not null
     * @return this builder
     */
    public Builder ticker(Ticker t) {
      this.ticker = Objects.requireNonNull(t, "ticker");
      return this;
    }

    /**
     * Sets the time between periodic refreshes. Default {@link #DEFAULT_PERIOD} (30 s).
     *
     * @param p a positive duration
     * @return this builder
     * @throws IllegalArgumentException when {@code p} is null, zero or negative
     */
    public Builder period(Duration p) {
      if (p == null || p.isNegative() || p.isZero()) {
        throw new IllegalArgumentException("topology refresh period must be positive, was " + p);
      }
      this.period = p;
      return this;
    }

    /**
     * Adds a listener told of every topology swapped in (see {@link TopologyRefresher#addListener}).
     *
     * @param l the listener; not null
     * @return this builder
     */
    public Builder listener(TopologyListener l) {
      listeners.add(Objects.requireNonNull(l, "listener"));
      return this;
    }

    Builder report(Report r) {
      this.report = Objects.requireNonNull(r, "report");
      return this;
    }

    /**
     * {@return a refresher, not started yet (see {@link TopologyRefresher#start()})}
     *
     * @throws IllegalArgumentException when the host source or the token map is missing
     */
    public TopologyRefresher build() {
      if (hostSupplier == null) {
        throw new IllegalArgumentException(
            "TopologyRefresher needs a hostSupplier (or a topologySupplier)");
      }
      if (tokenMapSupplier == null) {
        throw new IllegalArgumentException(
            "TopologyRefresher needs a tokenMapSupplier (or a topologySupplier)");
      }
      return new TopologyRefresher(this);
    }
  }
}
