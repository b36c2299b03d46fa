package io.dyno.core.topology;

import io.dyno.core.Host;
import io.dyno.core.HostSupplier;
import io.dyno.core.HostToken;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

  private static final Logger LOG = LoggerFactory.getLogger(TopologyRefresher.class);

  private final HostSupplier hostSupplier;
  private final TokenMapSupplier tokenMapSupplier;
  private final KeyHasher hasher;
  private final Locality locality;
  private final boolean rackAffinity;
  private final Scheduler scheduler;
  private final boolean ownsScheduler;
  private final Ticker ticker;
  private final Duration period;
  private final Report report;
  private final AtomicReference<Topology> current;
  private final List<TopologyListener> listeners = new CopyOnWriteArrayList<>();
  private final List<Consumer<RefreshStatus>> refreshObservers = new CopyOnWriteArrayList<>();
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Object refreshLock = new Object();
  private volatile RefreshStatus status = RefreshStatus.NEVER;
  private volatile Throwable lastFailure;
  private volatile Scheduler.Cancellable periodic;
  // guarded by refreshLock
  private List<String> reportedWarnings = List.of();
  private boolean failing;

  private TopologyRefresher(Builder b) {
    this.hostSupplier = b.hostSupplier;
    this.tokenMapSupplier = b.tokenMapSupplier;
    this.hasher = b.hasher;
    this.locality = b.locality;
    this.rackAffinity = b.rackAffinity;
    this.ownsScheduler = b.scheduler == null;
    this.scheduler = ownsScheduler ? Scheduler.daemon("dyno-topology-refresh") : b.scheduler;
    this.ticker = b.ticker != null
        ? b.ticker
        : scheduler instanceof Ticker ? (Ticker) scheduler : Ticker.system();
    this.period = b.period;
    this.report = b.report;
    this.listeners.addAll(b.listeners);
    this.current = new AtomicReference<>(
        TokenRingTopology.empty(hasher, locality.rack(), locality.datacenter()));
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
      return status;
    }
    RefreshStatus first = refreshNow();
    periodic = scheduler.scheduleAtFixedRate(this::refreshNow, period, period);
    return first;
  }

  /** {@return the topology in use} Never null: empty until the first successful refresh. */
  public Topology current() {
    return current.get();
  }

  /** {@return the topology in use, as {@link #current()}} */
  @Override
  public Topology get() {
    return current.get();
  }

  /** {@return the outcome of the latest refresh} {@link RefreshStatus#healthy()} is false before the first. */
  public RefreshStatus status() {
    return status;
  }

  /**
   * Why the latest refresh failed, or null when it succeeded (or none ran yet). Its type tells a
   * source that could not be reached from one that answered with something unusable
   * ({@link UnusableAnswerException}, {@link TopologyException}); {@link #status()} has its text.
   *
   * @return the latest refresh's failure, or null
   */
  public Throwable lastFailure() {
    return lastFailure;
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
    RefreshStatus outcome = refreshOnce();
    for (Consumer<RefreshStatus> observer : refreshObservers) {
      try {
        observer.accept(outcome);
      } catch (RuntimeException e) {
        report.warn("topology refresh observer " + observer + " failed: " + describe(e), e);
      }
    }
    return outcome;
  }

  private RefreshStatus refreshOnce() {
    synchronized (refreshLock) {
      if (closed.get()) {
        return status;
      }
      long now = ticker.nanoTime();
      RefreshStatus before = status;
      Topology previous = current.get();
      TokenRingTopology next;
      try {
        next = read(previous);
      } catch (Exception | LinkageError e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        String reason = describe(e);
        lastFailure = e;
        status = new RefreshStatus(
            false,
            previous.version(),
            now,
            before.lastSuccessNanos(),
            before.consecutiveFailures() + 1,
            before.attempts() + 1,
            before.failures() + 1,
            before.swaps(),
            reason);
        if (!failing) {
          failing = true;
          report.warn(
              "topology refresh failed, keeping "
                  + (previous.version() == 0
                      ? "no topology (none read yet)"
                      : "topology v" + previous.version() + " ("
                          + previous.hosts().size() + " nodes)")
                  + "; will retry every " + period.toSeconds()
                  + " s and report again when it recovers. Reason: "
                  + reason,
              e);
        } else {
          report.debug("topology refresh still failing: " + reason);
        }
        return status;
      }
      boolean swap = !(previous instanceof TokenRingTopology)
          || !((TokenRingTopology) previous).sameLayout(next);
      Topology inUse = swap ? next : previous;
      if (swap) {
        current.set(next);
      }
      if (failing) {
        failing = false;
        report.info("topology refresh recovered after " + before.consecutiveFailures()
            + " failed attempt(s)" + " (last reason: " + before.lastError() + ")");
      }
      if (!next.warnings().equals(reportedWarnings)) {
        reportedWarnings = next.warnings();
        for (String w : next.warnings()) report.warn("topology: " + w, null);
      }
      lastFailure = null;
      status = new RefreshStatus(
          true,
          inUse.version(),
          now,
          now,
          0,
          before.attempts() + 1,
          before.failures(),
          before.swaps() + (swap ? 1 : 0),
          null);
      if (swap) {
        report.info("topology v" + next.version() + " in use: " + next);
        for (TopologyListener l : listeners) {
          try {
            l.onTopologyChanged(previous, next);
          } catch (RuntimeException e) {
            report.warn(
                "topology listener " + l + " failed on v" + next.version() + ": " + describe(e), e);
          }
        }
      }
      return status;
    }
  }

  private TokenRingTopology read(Topology previous) throws Exception {
    List<HostToken> tokens;
    List<Host> hosts;
    if (hostSupplier == tokenMapSupplier && hostSupplier instanceof TopologySupplier) {
      // One read gives both: hosts and tokens cannot disagree.
      tokens = ((TopologySupplier) hostSupplier).getTokens(previous.hosts());
      hosts = null;
    } else {
      hosts = hostSupplier.getHosts();
      if (hosts == null || hosts.isEmpty()) {
        throw new IllegalStateException("host source " + hostSupplier + " returned no hosts");
      }
      tokens = tokenMapSupplier.getTokens(hosts);
    }
    if (tokens == null || tokens.isEmpty()) {
      throw new IllegalStateException("token map " + tokenMapSupplier + " returned no tokens");
    }
    TokenRingTopology.Builder b = TokenRingTopology.builder()
        .tokens(tokens)
        .hasher(effectiveHasher())
        .localRack(locality.rack())
        .localDatacenter(locality.datacenter())
        .rackAffinity(rackAffinity)
        .version(previous.version() + 1);
    if (hosts != null) {
      b.hosts(hosts);
    }
    return b.build();
  }

  /**
   * The configured hasher, or the cluster's own hash tag when the token source reports one and the
   * client configured none. A different configured tag is refused: keys would hash differently
   * from the servers' and reach the wrong nodes, with no error.
   */
  private KeyHasher effectiveHasher() {
    if (!(tokenMapSupplier instanceof HashtagSource source)) {
      return hasher;
    }
    String reported = source.clusterHashtag();
    if (reported == null || reported.isEmpty()) {
      return hasher;
    }
    String configured = hasher.hashtag();
    if (configured.isEmpty()) {
      try {
        return KeyHasher.forHashtag(reported);
      } catch (IllegalArgumentException e) {
        throw new TopologyException(
            "token map " + tokenMapSupplier + " reports the cluster's hash tag \"" + reported
                + "\", which is not usable: " + e.getMessage(),
            e);
      }
    }
    if (!configured.equals(reported)) {
      throw new TopologyException(
          "hash tag mismatch: this client is configured with \"" + configured
              + "\" but the cluster's token map " + tokenMapSupplier + " reports \"" + reported
              + "\"; keys would be"
              + " routed to the wrong nodes. Configure \"" + reported
              + "\" or leave the hash tag unset to use the cluster's");
    }
    return hasher;
  }

  private static String describe(Throwable e) {
    String m = e.getMessage();
    return m == null || m.isBlank()
        ? e.getClass().getName()
        : e.getClass().getSimpleName() + ": " + m;
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

    Report SLF4J = new Report() {
      @Override
      public void warn(String message, Throwable cause) {
        if (cause != null && LOG.isDebugEnabled()) {
          LOG.warn(message, cause);
        } else {
          LOG.warn(message);
        }
      }

      @Override
      public void info(String message) {
        LOG.info(message);
      }

      @Override
      public void debug(String message) {
        LOG.debug(message);
      }
    };
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
    private Report report = Report.SLF4J;
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
