package io.dyno.jedis.internal.mux;

import static io.dyno.jedis.internal.JedisNodeConnection.DYNO_CONFIG;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.time.Ticker;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * One long-lived connection to one node, shared by any number of threads (issue #11), adapting to
 * its load (issue #22). Its jobs live in one file each: {@link MuxBootstrap} (connect, TLS),
 * {@link MuxHandshake} (AUTH, SELECT, consistency), {@link MuxWriter} (queue, in-flight limit, write
 * coalescing), {@link MuxReplies} (the reply FIFO and the channel's events), {@link MuxExpiry}
 * (timeouts) and {@link MuxDirectSocket} (the caller-owned fast path).
 *
 * <p><b>Path of a request.</b> Idle, a caller that waits for its reply ({@link #call}) writes the
 * command on the connection's own blocking socket and reads the reply itself: no thread hand-off,
 * as on a pooled socket. Otherwise (busy, or {@link #submit} from the asynchronous API) the caller
 * encodes the command and queues it; a drain on the channel's event loop writes everything queued
 * by then in one write, at most {@code maxWritesInFlight} writes awaiting replies (Nagle's rule,
 * the request on the caller-owned socket counting as one), so under load the batches grow to about
 * the callers sharing the connection. Replies complete the oldest request (Redis and Dynomite
 * answer in order).
 *
 * <p><b>Bounds and failures.</b> At most {@code maxInFlight} requests are queued or unanswered; a
 * submit beyond that waits for a slot within its own timeout (and {@code inFlightWait}), then fails
 * with {@link InFlightLimitException} (never sent). A request still queued when its timeout passes or
 * its connection closes fails with a {@link NotSentException}: behind a frozen node's unanswered
 * write nothing more is sent, so what waits there can fail over whatever its idempotency. A sent
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
  /** Commands that hold the connection or change its state for every thread sharing it. */
  private static final Set<Protocol.Command> REFUSED = EnumSet.of(
      Protocol.Command.MULTI,
      Protocol.Command.EXEC,
      Protocol.Command.DISCARD,
      Protocol.Command.WATCH,
      Protocol.Command.UNWATCH,
      Protocol.Command.SELECT,
      Protocol.Command.AUTH,
      Protocol.Command.SUBSCRIBE,
      Protocol.Command.PSUBSCRIBE,
      Protocol.Command.UNSUBSCRIBE,
      Protocol.Command.PUNSUBSCRIBE,
      Protocol.Command.MONITOR,
      Protocol.Command.BLPOP,
      Protocol.Command.BRPOP,
      Protocol.Command.BRPOPLPUSH,
      Protocol.Command.BLMOVE,
      Protocol.Command.BZPOPMIN,
      Protocol.Command.BZPOPMAX,
      Protocol.Command.WAIT,
      Protocol.Command.CLIENT);

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
  /** The caller-owned fast path; null with TLS. */
  final MuxDirectSocket direct;

  volatile Channel channel;
  volatile EventLoop loop;
  private volatile ScheduledFuture<?> tickTask;
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
    this.direct = settings.tls() == null ? new MuxDirectSocket(this) : null;
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
      MuxHandshake.run(node, settings, consistency, deadlineNanos, c::handshakeStep);
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  private void attach(Channel ch) {
    long tick = settings.timeoutTick().toNanos();
    EventLoop l = ch.eventLoop();
    loop = l;
    channel = ch;
    tickTask = l.scheduleAtFixedRate(expiry::tick, tick, tick, TimeUnit.NANOSECONDS);
    if (!ch.isActive()) {
      l.execute(() -> fail(n -> new JedisConnectionException(
          "connection to " + node + " closed right after connecting")));
    }
  }

  /**
   * Sends one command alone on the channel (nothing else can be queued yet) and waits for its reply,
   * within the socket timeout and {@code deadlineNanos}.
   */
  private Object handshakeStep(CommandArguments cmd, String what, long deadlineNanos) {
    MuxRequest.Single r = new MuxRequest.Single(cmd.getCommand(), false);
    long now = ticker.nanoTime();
    long timeout = Math.max(0, Math.min(socketTimeoutNanos, deadlineNanos - now));
    writer.enqueue(r, RespEncoder.encode(channel.alloc(), cmd), now, timeout);
    try {
      // The tick fails the request at its timeout; the extra second only covers a stalled event
      // loop.
      return r.get(timeout + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw new JedisConnectionException(
          what + " on the new connection to " + node + " failed: " + cause.getMessage(), cause);
    } catch (TimeoutException e) {
      throw new JedisConnectionException(
          what + " on the new connection to " + node + " got no answer",
          new SocketTimeoutException("no reply within " + timeout / 1_000_000 + " ms"));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new JedisConnectionException("interrupted during " + what + " on " + node, e);
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
    long start = ticker.nanoTime();
    MuxRequest.Single r = new MuxRequest.Single(cmd.getCommand(), errorRepliesFail);
    ByteBuf bytes;
    try {
      refuseStateful(cmd);
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
   * its own thread: when the connection is idle it runs the command on the caller-owned socket and
   * returns the future complete; otherwise (or on a virtual thread) the command goes on the channel,
   * coalescing with others. Never from an event loop (the caller-owned path blocks).
   */
  public CompletableFuture<Object> call(
      CommandArguments cmd, long timeoutNanos, boolean errorRepliesFail) {
    if (direct != null
        && replies.inFlight() == 0
        && writer.queued() == 0
        && !closing.get()
        && MuxDirectSocket.callerMayUse()) {
      long start = ticker.nanoTime();
      try {
        refuseStateful(cmd);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
      MuxRequest.Single r = direct.tryCall(cmd, start, timeoutNanos, errorRepliesFail);
      if (r != null) {
        return r;
      }
    }
    return submit(cmd, timeoutNanos, errorRepliesFail);
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
        refuseStateful(cmd);
      }
      bytes = RespEncoder.encode(channel.alloc(), cmds);
    } catch (RuntimeException e) {
      r.completeExceptionally(e);
      return r;
    }
    writer.enqueue(r, bytes, start, timeoutNanos);
    return r;
  }

  private void refuseStateful(CommandArguments cmd) {
    ProtocolCommand c = cmd.getCommand();
    if (cmd.isBlocking()
        || c == DYNO_CONFIG
        || (c instanceof Protocol.Command pc && REFUSED.contains(pc))) {
      throw new IllegalArgumentException(
          RespEncoder.name(cmd) + " holds or changes per-connection state and cannot"
              + " go over the shared connection to " + node);
    }
  }

  /** 1 while the caller-owned socket carries a request (or owes its reply). */
  int directInFlight() {
    return direct == null ? 0 : direct.inFlight();
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
    ScheduledFuture<?> t = tickTask;
    if (t != null) {
      t.cancel(false);
    }
    permits.release(replies.failAll(e));
    writer.failSubmitted(e);
    if (direct != null) {
      direct.close(); // a caller reading there wakes and fails with this failure
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

  /** Written and not yet answered (requests; a pipeline counts once), the caller-owned socket's included. */
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

  /** Commands the callers wrote themselves on the caller-owned socket. */
  public long directWrites() {
    return direct == null ? 0 : direct.writes();
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
