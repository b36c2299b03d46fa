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
import java.util.function.IntFunction;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * One long-lived connection to one node, shared by any number of threads (issue #11), adapting to
 * its load (issue #22). Its jobs live in one file each: {@link MuxBootstrap} (connect, TLS),
 * {@link MuxHandshake} (AUTH, SELECT, consistency), {@link MuxWriter} (queue, in-flight limit, write
 * coalescing), {@link MuxReplies} (the reply FIFO), {@link MuxChannelEvents} (the channel's events),
 * {@link MuxExpiry} (timeout ticks, run only while something can expire), {@link MuxCallerSockets}
 * (the caller-owned fast path) and {@link MuxRefusals} (commands no shared connection may carry).
 * They share only {@link MuxBooks} (in-flight permits, requests no caller waits on, whether and why
 * the connection closed) and close it through {@link MuxCloser}; each is handed what it uses when
 * the connection is made. This class routes each call to its path, runs a tick's checks over the
 * parts and closes them all.
 *
 * <p><b>Path of a request.</b> A caller that waits for its reply ({@link #call}) takes a free caller
 * socket of the connection's (up to {@code callerSockets}, opened as concurrency needs them) unless
 * the channel holds a request it could overtake ({@link MuxBooks#detached}), writes its command there and
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

  private final String node;
  private final MuxSettings settings;
  private final Ticker ticker;
  private final ConsistencyLevel consistency;
  private final long socketTimeoutNanos;
  /** The event loop the channel is registered on, chosen before it connects. */
  private final EventLoop loop;

  private final MuxBooks books;
  private final MuxCloser closer = new MuxCloser() {
    @Override
    public void fail(IntFunction<JedisConnectionException> why) {
      MuxConnection.this.fail(why);
    }

    @Override
    public void failFromAnyThread(JedisConnectionException e) {
      MuxConnection.this.failFromAnyThread(e);
    }
  };
  private final MuxReplies replies;
  private final MuxExpiry expiry;
  /** The caller-owned fast path; null with TLS or no caller sockets. */
  private final MuxCallerSockets callers;

  private final MuxWriter writer;

  private volatile Channel channel;

  private MuxConnection(MuxEndpoint endpoint, EventLoop loop) {
    this.node = endpoint.node();
    this.settings = endpoint.settings();
    this.ticker = settings.ticker();
    this.consistency = endpoint.consistency();
    this.socketTimeoutNanos = settings.socketTimeout().toNanos();
    this.loop = loop;
    this.books = new MuxBooks(node, settings.maxInFlight());
    this.replies = new MuxReplies(node, ticker, books, closer);
    this.expiry = new MuxExpiry(loop, settings.timeoutTick(), ticker, this::expire, this::pending);
    this.callers = settings.tls() == null && settings.callerSockets() > 0
        ? new MuxCallerSockets(endpoint, books, closer, replies, expiry, this::resumeHeldDrain)
        : null;
    this.writer = new MuxWriter(node, settings, loop, books, replies, expiry, callers);
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
    EventLoop loop = group.next();
    MuxConnection c =
        new MuxConnection(new MuxEndpoint(node, address, settings, consistency), loop);
    int connectMillis = MuxBootstrap.connectMillis(settings, deadlineNanos - c.ticker.nanoTime());
    Channel ch = MuxBootstrap.connect(
        node, address, loop, settings, connectMillis, () -> new ChannelHandler[] {
          new RespDecoder(c.replies, settings.maxBulkBytes()),
          new MuxChannelEvents(node, c.replies, c.writer, c.books, c.closer)
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
    channel = ch;
    writer.attach(ch);
    if (!ch.isActive()) {
      loop.execute(() -> fail(n -> new JedisConnectionException(
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
    MuxRequest.Single r = new MuxRequest.Single(cmd.getCommand(), errorRepliesFail, detached);
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
   * its own thread: when nothing on the channel could be overtaken ({@link MuxBooks#detached}) and a caller
   * socket is free it runs the command there and
   * returns the future complete; otherwise (or on a virtual thread) the command goes on the channel,
   * coalescing with others. Never from an event loop (the caller-owned path blocks).
   */
  public CompletableFuture<Object> call(
      CommandArguments cmd, long timeoutNanos, boolean errorRepliesFail) {
    if (callers != null
        && books.detached() == 0
        && !books.closing()
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

  /** A caller socket's stale request was answered: a channel drain it held back runs now. */
  private void resumeHeldDrain() {
    writer.resumeHeldDrain();
  }

  /** Caller sockets carrying a request (or owed its reply). */
  private int directInFlight() {
    return callers == null ? 0 : callers.inFlight();
  }

  /**
   * The expiry's tick (event loop): what is out of time at {@code now} fails; false once the
   * connection is closed. The node is taken as hung when its oldest unanswered request has waited
   * longer than the socket timeout.
   */
  private boolean expire(long now) {
    if (books.failure() != null) {
      return false;
    }
    long waited = replies.oldestWaited(now);
    if (waited > socketTimeoutNanos) {
      fail(MuxExpiry.hung(node, settings.socketTimeout(), waited));
      return false;
    }
    replies.expire(now);
    if (callers != null && callers.checkOwedReplies(now)) {
      return false; // the connection closed
    }
    writer.expireQueued(now);
    return books.failure() == null;
  }

  /** Event loop: anything that a later tick must look at. */
  private boolean pending() {
    return replies.size() > 0 || writer.queued() > 0 || (callers != null && callers.owed() > 0);
  }

  /**
   * Event loop: closes for good. Everything in flight or queued fails with the exception made for
   * their count; permits come back so waiting submitters wake and see the connection closed.
   */
  private void fail(IntFunction<JedisConnectionException> why) {
    if (books.failure() != null) {
      return;
    }
    JedisConnectionException e = why.apply(replies.size() + writer.queued() + directInFlight());
    books.failed(e); // before the sweep: whoever sees the connection broken can read why
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
  private void failFromAnyThread(JedisConnectionException e) {
    if (loop.inEventLoop()) {
      fail(n -> e);
      return;
    }
    try {
      loop.execute(() -> fail(n -> e));
    } catch (RejectedExecutionException loopGone) {
      fail(n -> e);
    }
  }

  /**
   * Any thread, never blocking: closes for good, everything in flight or queued failing at once
   * with a connection failure naming the node and {@code why} (a node found silent).
   */
  public void abandon(String why) {
    failFromAnyThread(new JedisConnectionException("node " + node + " " + why
        + ": its connection was closed under the requests waiting on it"));
  }

  /**
   * Closes the connection: everything in flight or queued fails with "connection to NODE closed
   * with N requests in flight". Idempotent; waits (briefly) for the socket to close unless called
   * on the event loop.
   */
  @Override
  public void close() {
    if (!books.startClosing()) {
      return;
    }
    Runnable shut = () -> fail(n -> new JedisConnectionException(
        "connection to " + node + " closed with " + n + " requests in flight"));
    Channel ch = channel;
    if (ch == null) {
      return; // never attached: nothing was sent
    }
    if (loop.inEventLoop()) {
      shut.run();
      return;
    }
    try {
      loop.execute(shut);
    } catch (RejectedExecutionException loopGone) {
      shut.run(); // the loop is dead: nothing else touches the FIFO any more
    }
    ch.closeFuture().awaitUninterruptibly(1000);
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
    return books.closing();
  }

  /** Why it closed, or null while open. */
  public JedisConnectionException failure() {
    return books.failure();
  }

  /** Channel requests no caller waits on (tests: what keeps callers off their sockets). */
  int detachedRequests() {
    return books.detached();
  }

  /** Caller sockets whose request is stale at {@code now} (tests: the node may be frozen). */
  int staleCallerRequests(long now) {
    return callers == null ? 0 : callers.stale(now);
  }

  /** The caller sockets, or null (tests). */
  MuxCallerSockets callerSockets() {
    return callers;
  }

  /** Whether a timeout tick is coming (tests: an idle connection has none). */
  boolean ticking() {
    return expiry.ticking();
  }

  @Override
  public String toString() {
    return "MuxConnection[" + node + (consistency != null ? ", " + consistency : "") + ", inFlight="
        + inFlight() + ", queued=" + writer.queued() + (isBroken() ? ", closed" : "") + "]";
  }
}
