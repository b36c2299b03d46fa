package io.dyno.jedis.internal;

import com.netflix.spectator.api.Counter;
import com.netflix.spectator.api.DistributionSummary;
import com.netflix.spectator.api.Id;
import com.netflix.spectator.api.Timer;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.engine.internal.FailureReport;
import io.dyno.core.engine.internal.NodeConnectionFactory;
import io.dyno.core.metrics.DynoMetrics;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.time.Ticker;
import io.dyno.jedis.internal.mux.MuxConnection;
import io.dyno.jedis.internal.mux.MuxListener;
import io.dyno.jedis.internal.mux.MuxNodeChannels;
import io.dyno.jedis.internal.mux.MuxSettings;
import io.dyno.jedis.internal.mux.NotSentException;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The multiplexed transport behind dyno-core's pools. The engine still borrows a "connection" per
 * call, but what it borrows is a {@link MuxLease}: a cheap handle on the node's few shared
 * {@link MuxConnection}s. Every caller's commands for a node go out over those, coalesced into one
 * write while a connection is busy, so many callers' commands share each round trip. Routing,
 * failover, retries, deadlines, health and metrics stay the engine's.
 *
 * <p>What a lease means to the engine: its pool bounds the callers in flight per node
 * ({@code maxConnsPerHost}); a lease discarded after a timeout costs nothing (the shared connection
 * drops the late reply); the consistency level picks which shared connection carries the command
 * (one level per connection, as Dynomite keeps it), so switching sends nothing. A connection at
 * its in-flight limit refuses a command unsent ({@link #report}): to the engine that is a
 * pool timeout, so the command may move to another replica whatever its idempotency.
 *
 * <p>Metrics (with {@link Meters}), per node, tagged node and rack like the pool meters:
 * {@link DynoMetrics#MUX_QUEUE_DELAY} (submit to write, per request), the gauges
 * {@link DynoMetrics#MUX_IN_FLIGHT} and {@link DynoMetrics#MUX_QUEUED},
 * {@link DynoMetrics#MUX_WRITE_COMMANDS} (commands per write) and
 * {@link DynoMetrics#MUX_IN_FLIGHT_LIMIT_TIMEOUTS}.
 */
public final class MuxTransport
    implements NodeConnectionFactory<JedisNodeConnection>, AutoCloseable {
  private final JedisConnectionFactory classifier;
  private final MuxSettings settings;
  /** The settings' ticker: the leases' deadlines are on the same clock as the connections' timeouts. */
  final Ticker ticker;

  private final int connectionsPerNode;
  private final EventLoopGroup group;
  private final Map<Host, MuxNodeChannels> nodes = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Meters metrics;
  private final SSLContext tls;
  private final boolean verifyHostname;
  private final boolean datastoreMode;
  private final Map<Host, NodeGauges> nodeGauges = new ConcurrentHashMap<>();
  /**
   * Idle sockets of their own, per node, for commands that block a connection until answered
   * (datastore mode's BLPOP, BRPOP, XREAD BLOCK ...): they never go over the shared connections,
   * where they would hold up every other caller. A few are kept for callers that block in a loop.
   */
  private final Map<Host, Deque<JedisNodeConnection>> idleOwnSockets = new ConcurrentHashMap<>();

  static final int IDLE_OWN_SOCKETS_PER_NODE = 4;

  /**
   * @param classifier reads failures as the socket transport does (Jedis's exceptions)
   * @param connectionsPerNode shared connections per node and consistency level
   * @param metrics where each node's meters go (null: none; the settings' own listener is then kept)
   * @param tls TLS for every connection (null: plain): through Dynomite to each node's secure port
   *     (a TLS terminator in front of it), in datastore mode to the Redis port the engine hands over
   * @param verifyHostname whether the certificate must name the node's host
   * @param datastoreMode the engine hands over each node's Redis port (TLS goes there, not to a secure port)
   */
  public MuxTransport(
      JedisConnectionFactory classifier,
      MuxSettings settings,
      int connectionsPerNode,
      int ioThreads,
      String name,
      Meters metrics,
      SSLContext tls,
      boolean verifyHostname,
      boolean datastoreMode) {
    this.tls = tls;
    this.verifyHostname = verifyHostname;
    this.datastoreMode = datastoreMode;
    this.metrics = metrics;
    if (connectionsPerNode < 1) {
      throw new IllegalArgumentException(
          "muxConnectionsPerNode must be >= 1, was " + connectionsPerNode);
    }
    this.classifier = classifier;
    this.settings = settings;
    this.ticker = settings.ticker();
    this.connectionsPerNode = connectionsPerNode;
    this.group = MuxConnection.newEventLoopGroup(ioThreads, "dyno-" + name + "-mux");
  }

  @Override
  public JedisNodeConnection open(Host host, Duration connectTimeout, Duration socketTimeout) {
    if (closed.get()) {
      throw new JedisConnectionException(
          "the multiplexed transport is closed; no connection to " + host);
    }
    MuxNodeChannels channels = nodes.get(host);
    if (channels == null) {
      channels = nodes.computeIfAbsent(host, h -> channels(h, connectTimeout, socketTimeout));
    }
    // Connects now when nothing is open, within this open's connect bound (a health probe's is
    // shorter than the channels' own): a dead node fails the borrow, not the call.
    channels.connection(null, ticker.nanoTime() + connectTimeout.toNanos());
    return new MuxLease(this, host, channels, connectTimeout, socketTimeout);
  }

  private MuxNodeChannels channels(Host h, Duration connectTimeout, Duration socketTimeout) {
    MuxSettings.Builder s =
        settings.toBuilder().connectTimeout(connectTimeout).socketTimeout(socketTimeout);
    if (datastoreMode) { // what each new connection sends first, as pooled sockets do
      JedisConnectionFactory.Datastore d = classifier.datastore();
      String password = d.passwordFor(h);
      if (password != null) {
        s.auth(d.user(), password);
      }
      s.database(d.database()).pingOnOpen(true);
    }
    if (metrics != null) {
      s.listener(nodeMeters(metrics, h));
    }
    int port = h.port();
    if (tls != null) {
      if (!datastoreMode) {
        port =
            JedisConnectionFactory.securePort(h); // Dynomite speaks no TLS: its terminator's port
      }
      s.tls(new MuxSettings.Tls(tls, h.hostname(), verifyHostname));
    }
    MuxNodeChannels c = new MuxNodeChannels(
        h.toString(),
        new InetSocketAddress(h.ipAddress() != null ? h.ipAddress() : h.hostname(), port),
        group,
        s.build(),
        connectionsPerNode);
    if (metrics != null) {
      Id inFlight = metrics.id(DynoMetrics.MUX_IN_FLIGHT, Meters.nodeTags(h));
      Id queued = metrics.id(DynoMetrics.MUX_QUEUED, Meters.nodeTags(h));
      metrics.gauge(inFlight, c, MuxNodeChannels::inFlight);
      metrics.gauge(queued, c, MuxNodeChannels::queued);
      nodeGauges.put(h, new NodeGauges(inFlight, queued));
    }
    return c;
  }

  /**
   * The node left the topology: its shared connections close once the requests on them have had
   * the socket timeout to finish (new ones go to the remaining nodes), and its gauges go.
   */
  @Override
  public void nodeLeft(Host host) {
    closeIdleOwnSockets(host);
    MuxNodeChannels c = nodes.remove(host);
    if (c == null) {
      return;
    }
    NodeGauges g = nodeGauges.remove(host);
    if (g != null && metrics != null) {
      metrics.removeGauge(g.inFlight());
      metrics.removeGauge(g.queued());
    }
    try {
      group.schedule(c::close, c.socketTimeoutMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closing) {
      c.close();
    }
  }

  private record NodeGauges(Id inFlight, Id queued) {}

  /** The listener that feeds {@code host}'s queue-delay timer and in-flight-limit counter (also for benchmarks). */
  public static MuxListener nodeMeters(Meters metrics, Host host) {
    return new NodeMeters(
        metrics.muxQueueDelay(host),
        metrics.muxWriteCommands(host),
        metrics.muxInFlightLimitTimeouts(host));
  }

  @Override
  public FailureKind classify(Throwable failure) {
    return classifier.classify(failure);
  }

  /** The transport's event loops must never block: an async call started there moves to the engine's executor. */
  @Override
  public boolean onTransportThread() {
    for (EventExecutor e : group) {
      if (e.inEventLoop()) {
        return true;
      }
    }
    return false;
  }

  /**
   * A {@link NotSentException} (refused at the in-flight limit, out of time while queued, queued
   * on a connection that closed, or no connection could be opened) was not sent; after a close the
   * node may take it again on a new connection, while a node that could not be connected to is
   * blamed. Anything else was sent, read as the socket transport reads it.
   */
  @Override
  public FailureReport report(Throwable failure) {
    NotSentException n = notSent(failure);
    if (n == null) {
      return FailureReport.sent(classify(failure));
    }
    if (n.nodeUnreachable()) {
      return FailureReport.unreachable();
    }
    return n.behindUnansweredNanos() > 0
        ? FailureReport.notSentBehindUnanswered(n.behindUnansweredNanos())
        : FailureReport.notSent(n.connectionClosed());
  }

  /** The {@link NotSentException} in {@code failure}'s causes, or null. */
  private static NotSentException notSent(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof NotSentException n) {
        return n;
      }
    }
    return null;
  }

  /** Open shared connections to {@code host} (for tests and gauges). */
  public int openConnections(Host host) {
    MuxNodeChannels c = nodes.get(host);
    return c == null ? 0 : c.openConnections();
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    nodes.values().forEach(MuxNodeChannels::close);
    nodes.clear();
    idleOwnSockets.keySet().forEach(this::closeIdleOwnSockets);
    if (metrics != null) {
      nodeGauges.values().forEach(g -> {
        metrics.removeGauge(g.inFlight());
        metrics.removeGauge(g.queued());
      });
    }
    nodeGauges.clear();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }

  /**
   * Runs a command that blocks its connection until answered on a socket of its own (an idle one of
   * the node's, else a new one), bounded by {@code readTimeout} as on pooled sockets (Jedis lifts the
   * bound while a blocking command waits); the socket is kept for the next such command unless it
   * broke. Data errors leave it healthy.
   */
  Object executeOnOwnSocket(
      Host host, Duration connectTimeout, Duration readTimeout, CommandArguments args) {
    if (closed.get()) {
      throw new JedisConnectionException(
          "the multiplexed transport is closed; no connection to " + host);
    }
    Deque<JedisNodeConnection> idle =
        idleOwnSockets.computeIfAbsent(host, h -> new ConcurrentLinkedDeque<>());
    JedisNodeConnection own = idle.pollFirst();
    if (own == null || own.isBroken()) {
      if (own != null) {
        own.close();
      }
      own = classifier.open(host, connectTimeout, readTimeout);
    }
    boolean reusable = false;
    try {
      own.setReadTimeout(readTimeout);
      Object reply = own.execute(args);
      reusable = true;
      return reply;
    } catch (JedisDataException e) {
      reusable = true;
      throw e;
    } finally {
      if (reusable && !own.isBroken() && !closed.get() && idle.size() < IDLE_OWN_SOCKETS_PER_NODE) {
        idle.offerFirst(own);
      } else {
        own.close();
      }
    }
  }

  private void closeIdleOwnSockets(Host host) {
    Deque<JedisNodeConnection> idle = idleOwnSockets.remove(host);
    if (idle != null) {
      for (JedisNodeConnection c; (c = idle.pollFirst()) != null; ) {
        c.close();
      }
    }
  }

  /**
   * One node's meters. {@link #written} runs on the event loop once per request: a PercentileTimer
   * record (atomic adds on meters made once per node and bucket, no allocation).
   */
  private static final class NodeMeters implements MuxListener {
    private final Timer queueDelay;
    private final DistributionSummary writeCommands;
    private final Counter limitTimeouts;

    NodeMeters(Timer queueDelay, DistributionSummary writeCommands, Counter limitTimeouts) {
      this.queueDelay = queueDelay;
      this.writeCommands = writeCommands;
      this.limitTimeouts = limitTimeouts;
    }

    @Override
    public void flushed(String node, int commands) {
      writeCommands.record(commands);
    }

    @Override
    public void written(String node, int commands, long queuedNanos) {
      queueDelay.record(queuedNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void inFlightLimitWaited(String node, long waitedNanos, boolean acquired) {
      if (!acquired) {
        limitTimeouts.increment();
      }
    }
  }
}
