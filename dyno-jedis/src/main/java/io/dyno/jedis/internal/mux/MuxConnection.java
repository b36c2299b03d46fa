package io.dyno.jedis.internal.mux;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.time.Ticker;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * One long-lived connection to one node, shared by any number of threads (issue #11), adapting to
 * its load (issue #22). Its jobs live in one file each: {@link MuxBootstrap} (connect, TLS),
 * {@link MuxHandshake} (AUTH, SELECT, consistency), {@link MuxWriter} (queue, in-flight limit, write
 * coalescing), {@link MuxReplies} (the reply FIFO and the channel's events), {@link MuxExpiry}
 * (timeouts, run only while something can expire), {@link MuxCallerSockets} (the caller-owned fast
 * path) and {@link MuxRefusals} (commands no shared connection may carry).
 *
 * <p><b>Path of a request.</b> A caller that waits for its reply ({@link #call}) takes a free caller
 * socket of the connection's (up to {@code callerSockets}, opened as concurrency needs them) unless
 * the channel holds a request it could overtake ({@link #detached}), writes its command there and
 * reads the reply itself: no thread hand-off, as on a pooled socket. Otherwise (every caller socket
 * taken, or {@link #submit} from the asynchronous API) the caller encodes the command and queues
 * it; a drain on the channel's event loop writes everything queued by then in one write, at most
 * {@code maxWritesInFlight} writes awaiting replies on the channel (Nagle's rule), so under load
 * the batches grow to about the callers sharing the connection. Replies complete the oldest request
 * (Redis and Dynomite answer in order).
 *
 * <p><b>Bounds and failures.</b> At most {@code maxInFlight} requests are queued or unanswered; a
 * submit beyond that waits for a slot within its own timeout (and {@code inFlightWait}), then fails
 * with {@link InFlightLimitException} (never sent). A request still queued when its timeout passes or
 * its connection closes fails with a {@link NotSentException}: behind a frozen node's unanswered
 * writes nothing more is sent (once a caller socket's request is stale, new commands queue on the
 * channel, held behind it), so what waits there can fail over whatever its idempotency. A sent
 * request whose timeout passes fails with a {@link JedisConnectionException} caused by a
 * {@link SocketTimeoutException} (TIMEOUT to dyno-jedis' classifier) but keeps its place, so its
 * late reply is read and dropped. When the oldest unanswered request has waited longer than the
 * socket timeout the node is taken as hung: the connection closes and fails everything (TIMEOUT). A
 * peer close, an I/O error or a malformed reply also closes it and fails everything it holds, naming
 * the node and the count; a Redis error reply is only a value ({@link JedisDataException}) and never
 * closes anything. Every timeout is measured on the settings' {@link MuxSettings#ticker() ticker}.
 *
 * <p>Commands that would hold or change the connection's state for everyone sharing it (blocking,
 * MULTI, SELECT, AUTH, DYNO_CONFIG, subscriptions) are refused. Completion of a queued request runs
 * on the event loop: callers should wait on the future or hand off, never block inside a callback.
 * Never submit from an event-loop thread when the in-flight limit may be reached (it cannot wait
 * there and fails at once).
 */
public final class MuxConnection implements AutoCloseable {
  /** Far enough to be no bound, near enough that {@code nanoTime() + NO_DEADLINE} cannot overflow in a run. */
  static final long NO_DEADLINE = Long.MAX_VALUE / 4;

  final String node;
  final InetSocketAddress address;
  final MuxSettings settings;
  final Ticker ticker;
  final ConsistencyLevel consistency;
  final long socketTimeoutNanos;
  final Semaphore permits;
  final AtomicBoolean closing = new AtomicBoolean();
  final MuxWriter writer = new MuxWriter(this);
  final MuxReplies replies = new MuxReplies(this);
  final MuxExpiry expiry = new MuxExpiry(this);
  /** The caller-owned fast path; null with TLS or no caller sockets. */
  final MuxCallerSockets callers;
  /**
   * Channel requests no caller waits on ({@link MuxRequest#detached}): one may be an earlier command
   * of the thread now calling, which must then follow it on the channel. Waited requests' threads are
   * blocked, so a caller socket overtakes nothing they ordered.
   */
  final AtomicInteger detached = new AtomicInteger();

  volatile Channel channel;
  volatile EventLoop loop;
  /** Why the connection closed; set once, on the event loop. */
  volatile JedisConnectionException failure;

  private MuxConnection(
      String node, InetSocketAddress address, MuxSettings settings, ConsistencyLevel consistency) {
    this.node = node;
    this.address = address;
    this.settings = settings;
    this.ticker = settings.ticker();
    this.consistency = consistency;
    this.socketTimeoutNanos = settings.socketTimeout().toNanos();
    this.permits = new Semaphore(settings.maxInFlight());
    this.callers = settings.tls() == null && settings.callerSockets() > 0
        ? new MuxCallerSockets(this, settings.callerSockets())
        : null;
  }

  /** A NIO event-loop group of daemon threads, for owners that have none. */
  public static EventLoopGroup newEventLoopGroup(int threads, String name) {
    return MuxBootstrap.newEventLoopGroup(threads, name);
  }

  /**
   * Connects (bounded by the connect timeout), then sends AUTH if a password is set and the
   * consistency command if {@code consistency} is not null, each alone and awaited. Blocks: call it
   * outside the event loop. {@code group} must be a NIO group ({@link #newEventLoopGroup}).
   *
   * @param node how the node is named in every message (e.g. its {@code Host})
   */
  public static MuxConnection open(
      String node,
      InetSocketAddress address,
      EventLoopGroup group,
      MuxSettings settings,
      ConsistencyLevel consistency) {
    return open(
        node, address, group, settings, consistency, settings.ticker().nanoTime() + NO_DEADLINE);
  }

  /**
   * As {@link #open(String, InetSocketAddress, EventLoopGroup, MuxSettings, ConsistencyLevel)}, all
   * of it (connect and handshake) also bounded by {@code deadlineNanos} (on the settings'
   * {@link MuxSettings#ticker() ticker}): a caller opening a connection for its own request must not
   * wait past that request's time, e.g. on a frozen node whose kernel still accepts the connection.
   */
  public static MuxConnection open(
      String node,
      InetSocketAddress address,
      EventLoopGroup group,
      MuxSettings settings,
      ConsistencyLevel consistency,
      long deadlineNanos) {
    MuxConnection c = new MuxConnection(node, address, settings, consistency);
    int connectMillis = MuxBootstrap.connectMillis(settings, deadlineNanos - c.ticker.nanoTime());
    Channel ch = MuxBootstrap.connect(
        node, address, group, settings, connectMillis, () -> new ChannelHandler[] {
          new RespDecoder(c.replies, settings.maxBulkBytes()), c.replies.events()
        });
    c.attach(ch);
    try {
      MuxHandshake.run(node, settings, consistency, deadlineNanos, c.writer::handshakeStep);
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  private void attach(Channel ch) {
    EventLoop l = ch.eventLoop();
    loop = l;
    channel = ch;
    if (!ch.isActive()) {
      l.execute(() -> fail(n -> new JedisConnectionException(
          "connection to " + node + " closed right after connecting")));
    }
  }

  /**
   * Sends one command; the future completes with its raw reply (a {@link JedisDataException} object
   * for an error reply) or fails (timeout, in-flight limit, connection closed). May wait, within
   * {@code timeoutNanos}, for room under the in-flight limit.
   */
  public CompletableFuture<Object> submit(CommandArguments cmd, long timeoutNanos) {
    return submit(cmd, timeoutNanos, false);
  }

  /**
   * As {@link #submit(CommandArguments, long)}; with {@code errorRepliesFail} an error reply fails
   * the future with its {@link JedisDataException} instead of completing it (for callers that treat
   * an error reply as a failure, as the asynchronous request path does: a replica error fails over).
   */
  public CompletableFuture<Object> submit(
      CommandArguments cmd, long timeoutNanos, boolean errorRepliesFail) {
    return submit(cmd, timeoutNanos, errorRepliesFail, true);
  }

  private CompletableFuture<Object> submit(
      CommandArguments cmd, long timeoutNanos, boolean errorRepliesFail, boolean detached) {
    long start = ticker.nanoTime();
    MuxRequest.Single r = new MuxRequest.Single(cmd.getCommand(), errorRepliesFail);
    r.detached = detached;
    ByteBuf bytes;
    try {
      MuxRefusals.check(cmd, node);
      bytes = RespEncoder.encode(channel.alloc(), cmd);
    } catch (RuntimeException e) {
      r.completeExceptionally(e);
      return r;
    }
    writer.enqueue(r, bytes, start, timeoutNanos);
    return r;
  }

  /**
   * As {@link #submit(CommandArguments, long, boolean)}, for a caller that waits for the reply on
   * its own thread: when nothing on the channel could be overtaken ({@link #detached}) and a caller
   * socket is free it runs the command there and
   * returns the future complete; otherwise (or on a virtual thread) the command goes on the channel,
   * coalescing with others. Never from an event loop (the caller-owned path blocks).
   */
  public CompletableFuture<Object> call(
      CommandArguments cmd, long timeoutNanos, boolean errorRepliesFail) {
    if (callers != null
        && detached.get() == 0
        && !closing.get()
        && MuxCallerSockets.callerMayUse()) {
      long start = ticker.nanoTime();
      try {
        MuxRefusals.check(cmd, node);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
      MuxRequest.Single r = callers.tryCall(cmd, start, timeoutNanos, errorRepliesFail);
      if (r != null) {
        return r;
      }
    }
    return submit(cmd, timeoutNanos, errorRepliesFail, false);
  }

  /**
   * Sends commands as one pipeline: they leave contiguously (one buffer) and the future completes
   * with their replies in order (error replies as {@link JedisDataException} objects). The pipeline
   * counts as one request against the in-flight limit, and its timeout covers it whole.
   */
  public CompletableFuture<List<Object>> submitAll(List<CommandArguments> cmds, long timeoutNanos) {
    long start = ticker.nanoTime();
    if (cmds.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    MuxRequest.Pipeline r = new MuxRequest.Pipeline(cmds.size());
    r.detached = true;
    ByteBuf bytes;
    try {
      for (CommandArguments cmd : cmds) {
        MuxRefusals.check(cmd, node);
      }
      bytes = RespEncoder.encode(channel.alloc(), cmds);
    } catch (RuntimeException e) {
      r.completeExceptionally(e);
      return r;
    }
    writer.enqueue(r, bytes, start, timeoutNanos);
    return r;
  }

  /** Caller sockets carrying a request (or owed its reply). */
  int directInFlight() {
    return callers == null ? 0 : callers.inFlight();
  }

  /** Caller sockets whose request is stale at {@code now} (the node may be frozen). */
  int staleCallerRequests(long now) {
    return callers == null ? 0 : callers.stale(now);
  }

  /**
   * Event loop: closes for good. Everything in flight or queued fails with the exception made for
   * their count; permits come back so waiting submitters wake and see the connection closed.
   */
  void fail(IntFunction<JedisConnectionException> why) {
    if (failure != null) {
      return;
    }
    JedisConnectionException e = why.apply(replies.size() + writer.queued() + directInFlight());
    failure = e; // before closing: whoever sees the connection broken can read why
    closing.set(true);
    expiry.stop();
    replies.failAll(e); // each request gives its permit back as it leaves
    writer.failSubmitted(e);
    if (callers != null) {
      callers.close(); // a caller reading there wakes and fails with this failure
    }
    Channel ch = channel;
    if (ch != null) {
      ch.close();
    }
  }

  /** Any thread: closes with {@code e} (on the event loop, or here when the loop is gone). */
  void failFromAnyThread(JedisConnectionException e) {
    EventLoop l = loop;
    if (l == null || l.inEventLoop()) {
      fail(n -> e);
      return;
    }
    try {
      l.execute(() -> fail(n -> e));
    } catch (RejectedExecutionException loopGone) {
      fail(n -> e);
    }
  }

  JedisConnectionException closedError() {
    JedisConnectionException f = failure;
    return f != null ? f : new JedisConnectionException("connection to " + node + " is closed");
  }

  /**
   * Closes the connection: everything in flight or queued fails with "connection to NODE closed
   * with N requests in flight". Idempotent; waits (briefly) for the socket to close unless called
   * on the event loop.
   */
  @Override
  public void close() {
    if (!closing.compareAndSet(false, true)) {
      return;
    }
    Runnable shut = () -> fail(n -> new JedisConnectionException(
        "connection to " + node + " closed with " + n + " requests in flight"));
    EventLoop l = loop;
    if (l == null) {
      return; // never attached: nothing was sent
    }
    if (l.inEventLoop()) {
      shut.run();
      return;
    }
    try {
      l.execute(shut);
    } catch (RejectedExecutionException loopGone) {
      shut.run(); // the loop is dead: nothing else touches the FIFO any more
    }
    channel.closeFuture().awaitUninterruptibly(1000);
  }

  public String node() {
    return node;
  }

  /** The consistency level this connection carries for its life, or null (none was set). */
  public ConsistencyLevel consistency() {
    return consistency;
  }

  /** Written and not yet answered (requests; a pipeline counts once), the caller sockets' included. */
  public int inFlight() {
    return replies.inFlight() + directInFlight();
  }

  /** Submitted and not yet written. */
  public int queued() {
    return writer.queued();
  }

  /** Queued plus in flight: what a new request waits behind. */
  public int load() {
    return inFlight() + writer.queued();
  }

  public int maxInFlight() {
    return settings.maxInFlight();
  }

  /**
   * Writes so far (channel flushes and caller-owned writes): far fewer than {@link #commandsWritten()}
   * when writes coalesce.
   */
  public long flushes() {
    return writer.flushes() + directWrites();
  }

  public long commandsWritten() {
    return writer.commandsWritten() + directWrites();
  }

  /** Commands the callers wrote themselves on caller sockets. */
  public long directWrites() {
    return callers == null ? 0 : callers.writes();
  }

  /** Caller sockets open now (besides the channel). */
  public int callerSocketsOpen() {
    return callers == null ? 0 : callers.open();
  }

  /** Closed, by its owner or by a failure: it takes no more requests. */
  public boolean isBroken() {
    return closing.get();
  }

  /** Why it closed, or null while open. */
  public JedisConnectionException failure() {
    return failure;
  }

  @Override
  public String toString() {
    return "MuxConnection[" + node + (consistency != null ? ", " + consistency : "") + ", inFlight="
        + inFlight() + ", queued=" + writer.queued() + (isBroken() ? ", closed" : "") + "]";
  }
}
