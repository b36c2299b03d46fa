package io.dyno.jedis.internal.mux;

import static io.dyno.jedis.internal.JedisNodeConnection.DYNO_CONFIG;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.time.Ticker;
import io.dyno.jedis.internal.JedisConnectionFactory;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * One long-lived TCP connection to one node, shared by any number of threads (issue #11).
 *
 * <p><b>Path of a request.</b> The caller's thread encodes the command (RESP) and puts it on a
 * lock-free queue; the first submit after a drain schedules one drain task on the channel's event
 * loop. The drain writes everything queued by then and flushes once, so commands from many threads
 * leave in one write ({@link #flushes()} vs {@link #commandsWritten()} shows it). Written requests
 * enter a FIFO that only the event loop touches; each decoded reply completes the oldest one (Redis
 * and Dynomite answer in order).
 *
 * <p><b>Write coalescing.</b> At most {@code maxWritesInFlight} writes await their replies (default
 * 1); a drain that finds that many holds back, and what was submitted meanwhile leaves in one write
 * as soon as a read completes one of them (Nagle's rule, with the server's reply as the
 * acknowledgement). An idle connection writes at once, so a lone caller waits for nothing; under load
 * the batches grow to about the callers sharing the connection, which is where the server saves its
 * CPU: one read, one forward and one reply per batch instead of per command. 0 lifts the bound (a
 * write whenever the event loop runs: smaller batches, a little less waiting at light load).
 *
 * <p><b>Bounds and failures.</b> At most {@code maxInFlight} requests are queued or unanswered; a
 * submit beyond that waits for a slot within its own timeout (and {@code inFlightWait}), then fails
 * with {@link InFlightLimitException} (never sent). A request still queued when its timeout passes or
 * its connection closes fails with a {@link NotSentException}: behind a frozen node's unanswered
 * write nothing more is sent, so what waits there can fail over whatever its idempotency. A sent
 * request whose timeout passes fails with a {@link JedisConnectionException} caused by a
 * {@link SocketTimeoutException} (TIMEOUT to dyno-jedis' classifier) but keeps its FIFO slot, so its
 * late reply is read and dropped. When the <em>oldest</em> unanswered request has waited longer than
 * the socket timeout the node is taken as hung: the connection closes and fails everything (TIMEOUT). A peer close, an I/O error or a
 * malformed reply also closes it and fails everything it holds, naming the node and the count; a
 * Redis error reply is only a value ({@link JedisDataException}) and never closes anything.
 * Deadlines are checked every {@code timeoutTick} on the event loop, so one node's silence holds up
 * only the requests sent to it; every timeout is measured on the settings'
 * {@link MuxSettings#ticker() ticker}.
 *
 * <p><b>Per-connection state.</b> Only what is set while opening: AUTH and SELECT (datastore mode,
 * then a PING that makes a Redis wanting a password say so) and Dynomite's consistency level, each
 * sent alone and awaited (Dynomite drops what is pipelined behind it). Commands that would hold or
 * change the connection's state for everyone sharing it (blocking, MULTI, SELECT, AUTH, DYNO_CONFIG,
 * subscriptions) are refused.
 *
 * <p>Completion runs on the event loop: callers should wait on the future or hand off, never block
 * inside a callback. Never submit from an event-loop thread when the in-flight limit may be reached
 * (it cannot wait there and fails at once).
 */
public final class MuxConnection implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MuxConnection.class);

  /** Commands that hold the connection or change its state for every thread sharing it. */
  private static final Set<Protocol.Command> REFUSED = EnumSet.of(Protocol.Command.MULTI, Protocol.Command.EXEC,
      Protocol.Command.DISCARD, Protocol.Command.WATCH, Protocol.Command.UNWATCH, Protocol.Command.SELECT,
      Protocol.Command.AUTH, Protocol.Command.SUBSCRIBE, Protocol.Command.PSUBSCRIBE, Protocol.Command.UNSUBSCRIBE,
      Protocol.Command.PUNSUBSCRIBE, Protocol.Command.MONITOR, Protocol.Command.BLPOP,
      Protocol.Command.BRPOP, Protocol.Command.BRPOPLPUSH, Protocol.Command.BLMOVE, Protocol.Command.BZPOPMIN,
      Protocol.Command.BZPOPMAX, Protocol.Command.WAIT, Protocol.Command.CLIENT);

  private final String node;
  private final MuxSettings settings;
  private final Ticker ticker;
  private final ConsistencyLevel consistency;
  private final long socketTimeoutNanos;
  private final Semaphore permits;
  private final Queue<MuxRequest<?>> submitted = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final Runnable drainTask = this::drain;
  /** Written, unanswered requests, oldest first. Event loop only. */
  private final ArrayDeque<MuxRequest<?>> fifo = new ArrayDeque<>();
  /** Writes (flushes) not yet wholly answered. Event loop only. */
  private int writesInFlight;
  /** A write's last reply came in the current read: drain when the read is done. Event loop only. */
  private boolean drainAfterRead;

  private volatile Channel channel;
  private volatile EventLoop loop;
  private volatile ScheduledFuture<?> tickTask;
  /** Why the connection closed; set once, on the event loop. */
  private volatile JedisConnectionException failure;
  private volatile int inFlight;
  // Written by the event loop only (single writer), read anywhere.
  private volatile long flushes;
  private volatile long commandsWritten;

  private MuxConnection(String node, MuxSettings settings, ConsistencyLevel consistency) {
    this.node = node;
    this.settings = settings;
    this.ticker = settings.ticker();
    this.consistency = consistency;
    this.socketTimeoutNanos = settings.socketTimeout().toNanos();
    this.permits = new Semaphore(settings.maxInFlight());
  }

  /** A NIO event-loop group of daemon threads, for owners that have none. */
  public static EventLoopGroup newEventLoopGroup(int threads, String name) {
    return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), NioIoHandler.newFactory());
  }

  /**
   * Connects (bounded by the connect timeout), then sends AUTH if a password is set and the
   * consistency command if {@code consistency} is not null, each alone and awaited. Blocks: call it
   * outside the event loop. {@code group} must be a NIO group ({@link #newEventLoopGroup}).
   *
   * @param node how the node is named in every message (e.g. its {@code Host})
   */
  public static MuxConnection open(String node, InetSocketAddress address, EventLoopGroup group, MuxSettings settings,
      ConsistencyLevel consistency) {
    return open(node, address, group, settings, consistency, settings.ticker().nanoTime() + NO_DEADLINE);
  }

  /** Far enough to be no bound, near enough that {@code nanoTime() + NO_DEADLINE} cannot overflow in a run. */
  static final long NO_DEADLINE = Long.MAX_VALUE / 4;

  /**
   * As {@link #open(String, InetSocketAddress, EventLoopGroup, MuxSettings, ConsistencyLevel)}, all
   * of it (connect and handshake) also bounded by {@code deadlineNanos} (on the settings'
   * {@link MuxSettings#ticker() ticker}): a caller opening a connection for its own request must not
   * wait past that request's time, e.g. on a frozen node whose kernel still accepts the connection.
   */
  public static MuxConnection open(String node, InetSocketAddress address, EventLoopGroup group, MuxSettings settings,
      ConsistencyLevel consistency, long deadlineNanos) {
    MuxConnection c = new MuxConnection(node, settings, consistency);
    long leftMillis = Math.max(1, (deadlineNanos - c.ticker.nanoTime()) / 1_000_000);
    int connectMillis = (int) Math.max(1, Math.min(leftMillis, Math.min(Integer.MAX_VALUE,
        settings.connectTimeout().toMillis())));
    Bootstrap b = new Bootstrap().group(group).channel(NioSocketChannel.class)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectMillis)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.SO_KEEPALIVE, true)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            if (settings.tls() != null) {
              ch.pipeline().addLast(sslHandler(settings.tls(), address.getPort(), connectMillis));
            }
            ch.pipeline().addLast(new RespDecoder(c.new Replies(), settings.maxBulkBytes()), c.new Events());
          }
        });
    ChannelFuture f = b.connect(address);
    // Netty enforces the connect timeout; the extra second only covers a stalled event loop.
    if (!f.awaitUninterruptibly(connectMillis + 1000L)) {
      f.channel().close();
      throw new JedisConnectionException("could not connect to " + node + " (" + address + ") within "
          + connectMillis + " ms");
    }
    if (!f.isSuccess()) {
      Throwable cause = f.cause();
      throw new JedisConnectionException("could not connect to " + node + " (" + address + "): " + cause, cause);
    }
    if (settings.tls() != null) {
      awaitTlsHandshake(node, address, f.channel(), settings.tls(), connectMillis);
    }
    c.attach(f.channel());
    try {
      c.handshake(deadlineNanos);
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /**
   * The TLS layer: an engine for the node's host name (SNI), checking the certificate's name unless
   * that is turned off; its handshake bounded like the connect.
   */
  private static SslHandler sslHandler(MuxSettings.Tls tls, int port, int handshakeMillis) {
    SSLEngine engine = tls.context().createSSLEngine(tls.hostname(), port);
    engine.setUseClientMode(true);
    if (tls.verifyHostname()) {
      SSLParameters params = engine.getSSLParameters();
      params.setEndpointIdentificationAlgorithm("HTTPS");
      engine.setSSLParameters(params);
    }
    SslHandler h = new SslHandler(engine);
    h.setHandshakeTimeoutMillis(handshakeMillis);
    return h;
  }

  /** Waits for the TLS handshake; a failure closes the channel and says in words what went wrong. */
  private static void awaitTlsHandshake(String node, InetSocketAddress address, Channel ch, MuxSettings.Tls tls,
      int handshakeMillis) {
    Future<Channel> done = ch.pipeline().get(SslHandler.class)
        .handshakeFuture();
    boolean finished = done.awaitUninterruptibly(handshakeMillis + 1000L);
    if (finished && done.isSuccess()) {
      return;
    }
    ch.close();
    String where = node + " (" + address + ")";
    if (!finished) {
      throw new JedisConnectionException("TLS handshake with " + where + " failed: no answer within " + handshakeMillis
          + " ms");
    }
    String reason = JedisConnectionFactory.tlsReason(done.cause(), tls.hostname());
    throw new JedisConnectionException("TLS handshake with " + where + " failed: "
        + (reason != null ? reason : String.valueOf(done.cause())), done.cause());
  }

  private void attach(Channel ch) {
    long tick = settings.timeoutTick().toNanos();
    EventLoop l = ch.eventLoop();
    loop = l;
    channel = ch;
    tickTask = l.scheduleAtFixedRate(this::tick, tick, tick, TimeUnit.NANOSECONDS);
    if (!ch.isActive()) {
      l.execute(() -> fail(n -> new JedisConnectionException("connection to " + node + " closed right after connecting")));
    }
  }

  private void handshake(long deadlineNanos) {
    if (settings.password() != null) {
      CommandArguments auth = new CommandArguments(Protocol.Command.AUTH);
      if (settings.user() != null) {
        auth.add(settings.user());
      }
      auth.add(settings.password());
      Object reply = handshakeStep(auth, "AUTH", deadlineNanos);
      if (reply instanceof JedisDataException e) {
        // Redis never echoes the password; the user name helps.
        throw new JedisAccessControlException(node + " refused the credentials"
            + (settings.user() != null ? " of user '" + settings.user() + "'" : "") + ": " + e.getMessage());
      }
    }
    if (settings.database() != 0) {
      Object reply = handshakeStep(new CommandArguments(Protocol.Command.SELECT).add(settings.database()),
          "SELECT " + settings.database(), deadlineNanos);
      if (!(reply instanceof byte[] b) || !"OK".equals(new String(b, StandardCharsets.UTF_8))) {
        throw new JedisConnectionException("node " + node + " refused database " + settings.database() + ": "
            + describe(reply));
      }
    }
    if (settings.pingOnOpen()) {
      Object reply = handshakeStep(new CommandArguments(Protocol.Command.PING), "PING", deadlineNanos);
      if (reply instanceof JedisDataException e) {
        String m = e.getMessage();
        if (m != null && m.startsWith("NOAUTH")) {
          throw new JedisAccessControlException(node + " requires a password: " + m + (settings.password() == null
              ? " (no password is configured: set datastorePassword or the host's password)" : ""));
        }
        throw new JedisConnectionException("node " + node + " answered PING on a new connection with " + describe(e));
      }
    }
    if (consistency != null) {
      String step = "DYNO_CONFIG:CONN_CONSISTENCY " + consistency;
      Object reply = handshakeStep(new CommandArguments(DYNO_CONFIG).add(consistency.name()), step, deadlineNanos);
      if (!(reply instanceof byte[] b) || !"OK".equals(new String(b, StandardCharsets.UTF_8))) {
        throw new JedisConnectionException("node " + node + " answered " + describe(reply) + " to " + step);
      }
    }
  }

  /**
   * Sends one command alone (nothing else can be queued yet) and waits for its reply, within the
   * socket timeout and {@code deadlineNanos}.
   */
  private Object handshakeStep(CommandArguments cmd, String what, long deadlineNanos) {
    MuxRequest.Single r = new MuxRequest.Single(cmd.getCommand(), false);
    long now = ticker.nanoTime();
    long timeout = Math.max(0, Math.min(socketTimeoutNanos, deadlineNanos - now));
    enqueue(r, RespEncoder.encode(channel.alloc(), cmd), now, timeout);
    try {
      // The tick fails the request at its timeout; the extra second only covers a stalled event loop.
      return r.get(timeout + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw new JedisConnectionException(what + " on the new connection to " + node + " failed: " + cause.getMessage(),
          cause);
    } catch (TimeoutException e) {
      throw new JedisConnectionException(what + " on the new connection to " + node + " got no answer",
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
  public CompletableFuture<Object> submit(CommandArguments cmd, long timeoutNanos, boolean errorRepliesFail) {
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
    enqueue(r, bytes, start, timeoutNanos);
    return r;
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
    enqueue(r, bytes, start, timeoutNanos);
    return r;
  }

  private void refuseStateful(CommandArguments cmd) {
    ProtocolCommand c = cmd.getCommand();
    if (cmd.isBlocking() || c == DYNO_CONFIG || (c instanceof Protocol.Command pc && REFUSED.contains(pc))) {
      throw new IllegalArgumentException(RespEncoder.name(cmd) + " holds or changes per-connection state and cannot"
          + " go over the shared connection to " + node);
    }
  }

  private void enqueue(MuxRequest<?> r, ByteBuf bytes, long start, long timeoutNanos) {
    r.startNanos = start;
    r.deadlineNanos = start + timeoutNanos;
    JedisConnectionException refused = closing.get() ? closedError() : permits.tryAcquire() ? null : awaitPermit(r, start);
    if (refused != null) {
      bytes.release();
      r.completeExceptionally(refused);
      return;
    }
    r.bytes = bytes;
    r.submitNanos = ticker.nanoTime();
    queued.incrementAndGet();
    submitted.offer(r);
    if (closing.get()) {
      // close() may have swept the queue before this offer: sweep again so nothing stays behind.
      failSubmitted(closedError());
      return;
    }
    if (drainScheduled.compareAndSet(false, true)) {
      try {
        loop.execute(drainTask);
      } catch (RejectedExecutionException e) {
        closing.set(true);
        failSubmitted(new JedisConnectionException("the event loop of the connection to " + node + " is shut down", e));
      }
    }
  }

  /**
   * Waits for room under the in-flight limit until the request's deadline: null when it got a slot,
   * else why not ({@link InFlightLimitException}, interrupted, closed meanwhile).
   */
  private JedisConnectionException awaitPermit(MuxRequest<?> r, long start) {
    int limit = settings.maxInFlight();
    if (loop.inEventLoop()) {
      // Waiting here would stop the very loop that frees the slots.
      return new InFlightLimitException(node, limit - permits.availablePermits(), limit, 0);
    }
    boolean acquired;
    try {
      long now = ticker.nanoTime(); // the wait ends at the request's deadline or after inFlightWait, the sooner
      long left = Math.min(r.deadlineNanos - now, settings.inFlightWaitNanos() - (now - start));
      acquired = permits.tryAcquire(Math.max(0, left), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new JedisConnectionException("interrupted while waiting to send to " + node, e);
    }
    long waited = ticker.nanoTime() - start;
    settings.listener().inFlightLimitWaited(node, waited, acquired);
    if (!acquired) {
      return new InFlightLimitException(node, limit - permits.availablePermits(), limit, waited);
    }
    if (closing.get()) {
      permits.release();
      return closedError();
    }
    return null;
  }

  /** Event loop: writes everything queued, then flushes once. */
  private void drain() {
    if (closing.get()) {
      drainScheduled.set(false);
      failSubmitted(closedError());
      return;
    }
    int maxWrites = settings.maxWritesInFlight();
    if (maxWrites > 0 && writesInFlight >= maxWrites) {
      return; // drainScheduled stays set: the read that answers a write in flight drains (readDone)
    }
    drainScheduled.set(false); // before polling: a submit after this point schedules the next drain
    Channel ch = channel;
    long now = ticker.nanoTime();
    int commands = 0;
    MuxRequest<?> r;
    MuxRequest<?> last = null;
    while ((r = submitted.poll()) != null) {
      queued.decrementAndGet();
      if (r.isDone() || now - r.deadlineNanos >= 0) {
        dropUnwritten(r, now); // never sent, so it takes no FIFO slot
        continue;
      }
      ByteBuf b = r.bytes;
      r.bytes = null;
      r.writtenNanos = now;
      fifo.addLast(r);
      last = r;
      ch.write(b, ch.voidPromise()); // a write failure reaches exceptionCaught, which fails everything
      settings.listener().written(node, r.commands, now - r.startNanos);
      commands += r.commands;
    }
    if (commands > 0) {
      last.endsWrite = true;
      writesInFlight++;
      inFlight = fifo.size();
      ch.flush();
      settings.listener().flushed(node, commands);
      flushes = flushes + 1;
      commandsWritten = commandsWritten + commands;
    }
  }

  /** Event loop: one complete reply, for the oldest unanswered request. */
  private void onReply(Object raw) {
    MuxRequest<?> r = fifo.peekFirst();
    if (r == null) {
      if (failure == null) {
        fail(n -> new JedisConnectionException("node " + node + " sent a reply with no request outstanding ("
            + describe(raw) + "); connection closed"));
      }
      return;
    }
    if (r.accept(raw)) {
      // Out of the FIFO and the counts before its caller wakes: a caller's next request must not
      // find this connection still busy with its last one (it would open another connection).
      fifo.pollFirst();
      inFlight = fifo.size();
      permits.release();
      r.finish();
      if (r.endsWrite) {
        writesInFlight--;
        drainAfterRead = true;
      }
    }
  }

  /** Event loop, after a read's replies: what waited for a write to be answered leaves now, in one write. */
  private void readDone() {
    if (drainAfterRead) {
      drainAfterRead = false;
      drain(); // also when nothing is queued: it clears drainScheduled, which a gated drain left set
    }
  }

  /** Event loop, every timeoutTick: a hung node closes the connection; overdue requests fail. */
  private void tick() {
    MuxRequest<?> oldest = fifo.peekFirst();
    if (oldest == null || failure != null) {
      return;
    }
    long now = ticker.nanoTime();
    long waited = now - oldest.writtenNanos;
    if (waited > socketTimeoutNanos) {
      long ms = waited / 1_000_000;
      fail(n -> new JedisConnectionException("node " + node + " has not answered for " + ms + " ms (socket timeout "
          + settings.socketTimeout().toMillis() + " ms): connection closed with " + n + " requests in flight",
          new SocketTimeoutException("no reply from " + node + " within the socket timeout")));
      return;
    }
    for (MuxRequest<?> r : fifo) {
      if (!r.isDone() && now - r.deadlineNanos >= 0) {
        r.completeExceptionally(timeout(r, now));
      }
    }
    expireQueued(now);
  }

  /** Event loop: queued requests out of time fail unsent (they wait behind unanswered writes). */
  private void expireQueued(long now) {
    if (queued.get() == 0) {
      return;
    }
    for (MuxRequest<?> r : submitted) {
      if ((r.isDone() || now - r.deadlineNanos >= 0) && submitted.remove(r)) {
        queued.decrementAndGet();
        dropUnwritten(r, now);
      }
    }
  }

  /** A request taken off the queue that will not be written (cancelled, or out of time): it fails unsent. */
  private void dropUnwritten(MuxRequest<?> r, long now) {
    r.releaseBytes();
    permits.release();
    if (!r.isDone()) {
      long ms = (now - r.startNanos) / 1_000_000;
      r.completeExceptionally(new NotSentException(r.describe() + " was not sent to " + node + ": its timeout passed ("
          + ms + " ms) while it waited to be written", new SocketTimeoutException("timed out after " + ms + " ms")));
    }
  }

  private JedisConnectionException timeout(MuxRequest<?> r, long now) {
    long ms = (now - r.startNanos) / 1_000_000;
    return new JedisConnectionException("no reply from " + node + " to " + r.describe() + " within its timeout ("
        + ms + " ms)", new SocketTimeoutException("timed out after " + ms + " ms"));
  }

  /**
   * Event loop: closes for good. Everything in flight or queued fails with the exception made for
   * their count; permits come back so waiting submitters wake and see the connection closed.
   */
  private void fail(IntFunction<JedisConnectionException> why) {
    if (failure != null) {
      return;
    }
    JedisConnectionException e = why.apply(fifo.size() + queued.get());
    failure = e; // before closing: whoever sees the connection broken can read why
    closing.set(true);
    ScheduledFuture<?> t = tickTask;
    if (t != null) {
      t.cancel(false);
    }
    int n = 0;
    for (MuxRequest<?> r; (r = fifo.pollFirst()) != null; n++) {
      r.completeExceptionally(e);
    }
    inFlight = 0;
    writesInFlight = 0;
    permits.release(n);
    failSubmitted(e);
    Channel ch = channel;
    if (ch != null) {
      ch.close();
    }
  }

  /** Fails what is queued but unwritten (any thread: the queue allows concurrent polls); none of it was sent. */
  private void failSubmitted(JedisConnectionException e) {
    for (MuxRequest<?> r; (r = submitted.poll()) != null; ) {
      queued.decrementAndGet();
      r.releaseBytes();
      permits.release();
      r.completeExceptionally(new NotSentException(e.getMessage() + " (" + r.describe() + " was queued, not sent)", e,
          true));
    }
  }

  private JedisConnectionException closedError() {
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
    Runnable shut = () -> fail(n -> new JedisConnectionException("connection to " + node + " closed with " + n
        + " requests in flight"));
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

  /** Where the decoder's replies go (event loop); a reply is owed while the FIFO holds a request. */
  private final class Replies implements RespDecoder.Sink {
    @Override
    public void reply(Object raw) {
      onReply(raw);
    }

    @Override
    public boolean expecting() {
      return !fifo.isEmpty();
    }
  }

  /** Event-loop callbacks of the channel. */
  private final class Events extends ChannelInboundHandlerAdapter {
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      readDone();
      ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      fail(n -> new JedisConnectionException("connection to " + node + " was closed by the peer with " + n
          + " requests in flight"));
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (cause instanceof DecoderException && cause.getCause() instanceof RespDecoder.RespProtocolException p) {
        fail(n -> new JedisConnectionException("malformed reply from " + node + " (" + p.getMessage()
            + "): connection closed with " + n + " requests in flight", p));
      } else {
        fail(n -> new JedisConnectionException("connection to " + node + " failed (" + cause
            + ") with " + n + " requests in flight", cause));
      }
      if (failure != null) {
        log.debug("{}", failure.getMessage());
      }
    }
  }

  private static String describe(Object raw) {
    if (raw instanceof byte[] b) {
      return "'" + new String(b, StandardCharsets.UTF_8) + "'";
    }
    if (raw instanceof JedisDataException e) {
      return "error '" + e.getMessage() + "'";
    }
    return String.valueOf(raw);
  }

  public String node() { return node; }

  /** The consistency level this connection carries for its life, or null (none was set). */
  public ConsistencyLevel consistency() { return consistency; }

  /** Written and not yet answered (requests; a pipeline counts once). */
  public int inFlight() { return inFlight; }

  /** Submitted and not yet written. */
  public int queued() { return queued.get(); }

  /** Queued plus in flight: what a new request waits behind. */
  public int load() { return inFlight + queued.get(); }

  public int maxInFlight() { return settings.maxInFlight(); }

  /** Flushes (socket writes) so far: far fewer than {@link #commandsWritten()} when writes coalesce. */
  public long flushes() { return flushes; }

  public long commandsWritten() { return commandsWritten; }

  /** Closed, by its owner or by a failure: it takes no more requests. */
  public boolean isBroken() { return closing.get(); }

  /** Why it closed, or null while open. */
  public JedisConnectionException failure() { return failure; }

  @Override
  public String toString() {
    return "MuxConnection[" + node + (consistency != null ? ", " + consistency : "") + ", inFlight=" + inFlight
        + ", queued=" + queued.get() + (isBroken() ? ", closed" : "") + "]";
  }
}
