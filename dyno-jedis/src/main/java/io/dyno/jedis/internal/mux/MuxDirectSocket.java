package io.dyno.jedis.internal.mux;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The caller-owned fast path of a shared connection: a blocking socket beside the channel, to the
 * same node with the same handshake (AUTH, SELECT, consistency level). A caller that waits for its
 * reply and finds the connection idle (nothing written or queued on the channel, this socket free)
 * writes its command here and reads the reply itself, on its own thread: no hand-off to the event
 * loop and back, as on a pooled socket. Under load the connection is never idle, so commands
 * coalesce on the channel as before; and once callers collide here, the channel carries everything
 * for a while.
 *
 * <p>The socket is the connection's write in flight while it carries a request: it holds one of
 * the in-flight permits, the channel's drain waits for it (Nagle's rule as on the channel), and
 * gauges count it. Its request follows the channel's rules: a timeout fails it (TIMEOUT) but the
 * socket stays owed its reply, which the event loop's tick reads and drops, and what queues behind
 * it fails unsent at its own timeout; the reply owed past the socket timeout means the node is hung
 * and closes the connection; an I/O error, a peer close or a malformed reply closes the connection
 * (the channel too), failing everything it holds. Not used with TLS (the channel carries all), by
 * fork-join workers (see {@link #callerMayUse}), nor by virtual threads: an interrupt closes a
 * socket a virtual thread reads (Java 21+), which would end a call before the outcome of what it
 * sent is known, where a blocking call waits uninterruptibly.
 */
final class MuxDirectSocket implements RespDecoder.Sink {
  private static final Logger log = LoggerFactory.getLogger(MuxDirectSocket.class);
  private static final int READ_CHUNK = 8192;
  /**
   * After callers collided here (one found the socket taken, or others queued behind its request),
   * the channel carries everything for this long: with callers colliding on the node, coalescing on
   * the channel wins, and a queued request would otherwise wait for the socket's caller to be
   * scheduled again before the event loop may write it.
   */
  private static final long CONTENDED_NANOS = 200_000_000L;
  /** After a failed open the channel carries everything for this long (a connect per call would be slow). */
  private static final long OPEN_RETRY_NANOS = 1_000_000_000L;

  private final MuxConnection c;
  /** Held by the caller on the socket, or by an owed reply after that caller's timeout passed. */
  private final AtomicBoolean held = new AtomicBoolean();
  /** The reply of a request whose caller gave up is still to come: the tick reads it. */
  private volatile boolean owed;

  private volatile long writtenNanos;
  private volatile Socket socket;
  private volatile long writes;
  /** Others queued behind a request here lately: until {@code channelOnlyUntil} the channel carries all. */
  private volatile boolean contended;

  private volatile long channelOnlyUntil;
  // Guarded by held (handed between caller and event loop through the volatile owed).
  private InputStream in;
  private OutputStream out;
  private ByteBuf buf;
  private RespDecoder decoder;
  private boolean awaiting;
  private boolean answered;
  private Object reply;
  private RespDecoder.RespProtocolException strayBytes;
  private boolean openFailed;
  private long retryOpenAt;

  /** {@code Thread.isVirtual()}, found once: the release runs on Java 17, which has none. */
  private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

  MuxDirectSocket(MuxConnection c) {
    this.c = c;
  }

  private static MethodHandle isVirtualHandle() {
    try {
      return MethodHandles.publicLookup()
          .findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
    } catch (NoSuchMethodException | IllegalAccessException olderJava) {
      return null;
    }
  }

  /**
   * Whether the calling thread may use this path: a platform thread that is not a fork-join worker.
   * A worker (parallel streams, {@code CompletableFuture}'s async tasks) blocked in a socket read
   * is not compensated by its pool, whereas waiting for the channel's future is (a managed block):
   * on a one-worker common pool the reading task would starve every other task until its reply.
   */
  static boolean callerMayUse() {
    Thread caller = Thread.currentThread();
    if (caller instanceof ForkJoinWorkerThread) {
      return false;
    }
    if (IS_VIRTUAL == null) {
      return true;
    }
    try {
      return !(boolean) IS_VIRTUAL.invokeExact(caller);
    } catch (Throwable unexpected) {
      return false;
    }
  }

  /**
   * Runs {@code cmd} on this socket when the connection is idle: the request, complete, or null when
   * the caller should use the channel (busy, at the in-flight limit, closing, or no socket opens).
   */
  MuxRequest.Single tryCall(
      CommandArguments cmd, long start, long timeoutNanos, boolean errorRepliesFail) {
    if (contended && start - channelOnlyUntil < 0) {
      return null;
    }
    if (!held.compareAndSet(false, true)) {
      channelOnlyFor(start); // another caller is on the socket: callers are colliding on this node
      return null;
    }
    if (!c.permits.tryAcquire()) {
      release(false);
      return null;
    }
    if (c.closing.get()
        || c.replies.inFlight() != 0
        || c.writer.queued() != 0
        || (openFailed && start - retryOpenAt < 0)) {
      release(true);
      return null;
    }
    long deadline = start + timeoutNanos;
    if (socket == null && !open(deadline)) {
      release(true);
      return null;
    }
    MuxRequest.Single r = new MuxRequest.Single(cmd.getCommand(), errorRepliesFail);
    r.startNanos = start;
    r.deadlineNanos = deadline;
    byte[] bytes;
    try {
      bytes = RespEncoder.encodeToArray(cmd);
    } catch (RuntimeException e) {
      release(true);
      r.completeExceptionally(e);
      return r;
    }
    long now = c.ticker.nanoTime();
    r.submitNanos = now;
    r.writtenNanos = now;
    writtenNanos = now;
    c.settings.listener().written(c.node, 1, now - start);
    c.settings.listener().flushed(c.node, 1);
    writes = writes + 1;
    Object raw;
    try {
      out.write(bytes);
      raw = readReply(deadline);
    } catch (SocketTimeoutException e) {
      if (c.closing.get()) {
        return broke(r, c.closedError());
      }
      owed =
          true; // keeps the socket and its permit: the tick reads the late reply, or finds the node
      // hung
      r.completeExceptionally(MuxExpiry.timeout(c.node, r, c.ticker.nanoTime()));
      return r;
    } catch (IOException e) {
      return broke(
          r,
          c.closing.get()
              ? c.closedError()
              : e instanceof EOFException
                  ? new JedisConnectionException("connection to " + c.node
                      + " was closed by the peer with 1 requests in flight")
                  : new JedisConnectionException(
                      "connection to " + c.node + " failed (" + e + ") with 1 requests in flight",
                      e));
    } catch (RespDecoder.RespProtocolException e) {
      return broke(r, MuxReplies.malformed(c.node, e, 1));
    } catch (RuntimeException e) { // never leave the socket held: the channel's drains wait for it
      return broke(
          r,
          new JedisConnectionException(
              "connection to " + c.node + " failed (" + e + ") with 1 requests in flight", e));
    }
    RespDecoder.RespProtocolException junk = strayBytes;
    if (junk != null || buf.isReadable()) {
      // The reply came whole; what followed it answers nothing, so the stream can no longer be
      // trusted.
      strayBytes = null;
      closeConnection(MuxReplies.malformed(
          c.node,
          junk != null
              ? junk
              : new RespDecoder.RespProtocolException("bytes with no request outstanding"),
          0));
    }
    if (c.writer.queued() > 0) {
      channelOnlyFor(c.ticker.nanoTime());
    }
    release(true);
    r.accept(raw);
    r.finish();
    return r;
  }

  /** The socket failed under a request: it fails with {@code e}, and so does the whole connection. */
  private MuxRequest.Single broke(MuxRequest.Single r, JedisConnectionException e) {
    closeConnection(e);
    release(true);
    r.completeExceptionally(e);
    return r;
  }

  /**
   * Closes the socket and the connection at once (new requests go to another connection from now
   * on), then fails what the connection holds on its event loop.
   */
  private void closeConnection(JedisConnectionException e) {
    closeSocket();
    c.closing.set(true);
    c.failFromAnyThread(e);
  }

  /** Reads until one complete reply is decoded, within {@code deadline} (a SocketTimeoutException after it). */
  private Object readReply(long deadline) throws IOException {
    Socket s = socket;
    if (s == null) {
      throw new SocketException("closed"); // the connection closed meanwhile
    }
    awaiting = true;
    answered = false;
    while (!answered) {
      long left = deadline - c.ticker.nanoTime();
      if (left <= 0) {
        throw new SocketTimeoutException("timed out");
      }
      s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, Math.max(1, (left + 999_999) / 1_000_000)));
      buf.ensureWritable(READ_CHUNK);
      if (buf.writeBytes(in, buf.writableBytes()) < 0) {
        throw new EOFException();
      }
      try {
        decoder.feed(buf);
      } catch (RespDecoder.RespProtocolException e) {
        if (!answered) {
          throw e;
        }
        strayBytes = e; // after the reply: the reply stands, the connection closes
      }
      buf.discardSomeReadBytes();
    }
    awaiting = false;
    Object raw = reply;
    reply = null;
    return raw;
  }

  /**
   * Event loop (tick): reads and drops the owed reply if it came; true when the connection closed
   * (the owed reply is past the socket timeout, or the socket failed).
   */
  boolean checkOwedReply(long now) {
    if (!owed) {
      return false;
    }
    long waited = now - writtenNanos;
    if (waited > c.socketTimeoutNanos) {
      c.expiry.hung(waited);
      return true;
    }
    try {
      int available = in.available();
      if (available > 0) {
        buf.ensureWritable(available);
        if (buf.writeBytes(in, available) < 0) {
          throw new EOFException();
        }
        decoder.feed(buf);
        buf.discardSomeReadBytes();
      }
    } catch (IOException | RuntimeException e) {
      c.fail(n -> new JedisConnectionException(
          "connection to " + c.node + " failed (" + e + ") with " + n + " requests in flight", e));
      return true;
    }
    if (answered) {
      awaiting = false;
      reply = null; // the late reply of a request that timed out: dropped
      owed = false;
      release(true);
    }
    return false;
  }

  private void channelOnlyFor(long now) {
    channelOnlyUntil = now + CONTENDED_NANOS;
    contended = true;
  }

  /** Gives the socket back; with {@code permit}, the in-flight permit too. A drain held back for it runs now. */
  private void release(boolean permit) {
    if (permit) {
      c.permits.release();
    }
    held.set(false);
    c.writer.resumeHeldDrain();
  }

  /** Connects and runs the handshake on the caller's thread, by {@code deadline}; false when it failed. */
  private boolean open(long deadline) {
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      s.setKeepAlive(true);
      s.connect(c.address, MuxBootstrap.connectMillis(c.settings, deadline - c.ticker.nanoTime()));
      in = s.getInputStream();
      out = s.getOutputStream();
      buf = Unpooled.buffer(READ_CHUNK);
      decoder = new RespDecoder(this, c.settings.maxBulkBytes());
      socket = s;
      MuxHandshake.run(c.node, c.settings, c.consistency, deadline, this::handshakeStep);
      if (c.closing.get()) {
        closeSocket();
        return false;
      }
      openFailed = false;
      return true;
    } catch (IOException | RuntimeException e) {
      log.debug(
          "no socket of its own to {}, the shared channel carries its commands for now: {}",
          c.node,
          e.toString());
      socket = s;
      closeSocket();
      openFailed = true;
      retryOpenAt = c.ticker.nanoTime() + OPEN_RETRY_NANOS;
      return false;
    }
  }

  private Object handshakeStep(CommandArguments cmd, String what, long deadlineNanos) {
    long deadline = Math.min(deadlineNanos, c.ticker.nanoTime() + c.socketTimeoutNanos);
    try {
      out.write(RespEncoder.encodeToArray(cmd));
      return readReply(deadline);
    } catch (IOException | RespDecoder.RespProtocolException e) {
      throw new JedisConnectionException(
          what + " on the new connection to " + c.node + " failed: " + e, e);
    }
  }

  /** Any thread: closes the socket (a caller blocked on it wakes and fails); an owed reply's permit comes back. */
  void close() {
    closeSocket();
    if (owed) {
      owed = false;
      release(true);
    }
  }

  private void closeSocket() {
    Socket s = socket;
    socket = null;
    if (s != null) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing: nothing more to do with it
      }
    }
  }

  @Override
  public void reply(Object raw) {
    reply = raw;
    answered = true;
  }

  @Override
  public boolean expecting() {
    return awaiting && !answered;
  }

  /** 1 while a request (or its owed reply) holds the socket. */
  int inFlight() {
    return held.get() ? 1 : 0;
  }

  long writes() {
    return writes;
  }
}
