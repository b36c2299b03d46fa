package io.dyno.jedis.internal.mux;

import io.dyno.core.time.Ticker;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * One caller socket of a shared connection ({@link MuxCallerSockets}): a blocking socket beside the
 * channel, to the same node with the same handshake (AUTH, SELECT, consistency level), on which the
 * caller that holds it writes its command and reads the reply itself, on its own thread: no
 * hand-off to the event loop and back, as on a pooled socket.
 *
 * <p>Its request follows the channel's rules: it holds one of the connection's in-flight permits
 * and gauges count it; a timeout fails it (TIMEOUT) but the socket stays owed its reply, which the
 * event loop's tick reads and drops; the reply owed past the socket timeout means the node is hung
 * and closes the connection; an I/O error, a peer close or a malformed reply closes the connection
 * (the channel and every caller socket too), failing everything it holds.
 */
final class MuxDirectSocket implements RespDecoder.Sink {
  private static final Logger log = LoggerFactory.getLogger(MuxDirectSocket.class);
  private static final int READ_CHUNK = 8192;

  private final MuxEndpoint endpoint;
  private final String node;
  private final Ticker ticker;
  private final MuxListener listener;
  private final long socketTimeoutNanos;
  private final MuxBooks books;
  private final MuxCloser closer;
  private final MuxCallerSockets pool;
  /** Held by the caller on the socket, or by an owed reply after that caller's timeout passed. */
  private final AtomicBoolean held = new AtomicBoolean();
  /** The reply of a request whose caller gave up is still to come: the tick reads it. */
  private volatile boolean owed;

  /** A request here awaits its reply (its caller's, or an owed one), written at writtenNanos. */
  private volatile boolean unanswered;

  private volatile long writtenNanos;

  private volatile Socket socket;
  private volatile long writes;
  // Guarded by held (handed between caller and event loop through the volatile owed).
  private InputStream in;
  private OutputStream out;
  private ByteBuf buf;
  private RespDecoder decoder;
  private boolean awaiting;
  private boolean answered;
  private Object reply;
  private RespDecoder.RespProtocolException strayBytes;

  MuxDirectSocket(MuxEndpoint endpoint, MuxBooks books, MuxCloser closer, MuxCallerSockets pool) {
    this.endpoint = endpoint;
    this.node = endpoint.node();
    this.ticker = endpoint.settings().ticker();
    this.listener = endpoint.settings().listener();
    this.socketTimeoutNanos = endpoint.settings().socketTimeout().toNanos();
    this.books = books;
    this.closer = closer;
    this.pool = pool;
  }

  /** Takes the socket for one request; false when another caller (or an owed reply) holds it. */
  boolean tryHold() {
    return !held.get() && held.compareAndSet(false, true);
  }

  boolean isOpen() {
    return socket != null;
  }

  /**
   * Holding the socket: runs {@code cmd} on it when the channel still holds nothing it could
   * overtake ({@link MuxBooks#detached}). The request,
   * complete, or null (the socket released) when the channel should carry it (busy, at the in-flight
   * limit, closing, or the socket did not open).
   */
  MuxRequest.Single call(
      CommandArguments cmd, long start, long timeoutNanos, boolean errorRepliesFail) {
    if (!books.tryTakePermit()) {
      release(false);
      return null;
    }
    // Rechecked now that the socket is held: a command no caller waits on must not be overtaken.
    if (books.closing() || books.detached() != 0) {
      release(true);
      return null;
    }
    long deadline = start + timeoutNanos;
    if (socket == null && !open(deadline)) {
      release(true);
      return null;
    }
    MuxRequest.Single r = new MuxRequest.Single(cmd.getCommand(), errorRepliesFail, false);
    r.timed(start, timeoutNanos);
    byte[] bytes;
    try {
      bytes = RespEncoder.encodeToArray(cmd);
    } catch (RuntimeException e) {
      release(true);
      r.completeExceptionally(e);
      return r;
    }
    long now = ticker.nanoTime();
    r.written(now);
    writtenNanos = now;
    unanswered = true;
    listener.written(node, 1, now - start);
    listener.flushed(node, 1);
    writes = writes + 1;
    Object raw;
    try {
      out.write(bytes);
      raw = readReply(deadline);
    } catch (SocketTimeoutException e) {
      if (books.closing()) {
        return broke(r, books.closedError());
      }
      // Keeps the socket and its permit: the tick reads the late reply, or finds the node hung.
      owed = true;
      pool.owes();
      r.completeExceptionally(MuxExpiry.timeout(node, r, ticker.nanoTime()));
      return r;
    } catch (IOException e) {
      return broke(r, books.closing() ? books.closedError() : failed(e));
    } catch (RespDecoder.RespProtocolException e) {
      return broke(r, MuxReplies.malformed(node, e, 1));
    } catch (RuntimeException e) { // never leave the socket held
      return broke(
          r,
          new JedisConnectionException(
              "connection to " + node + " failed (" + e + ") with 1 requests in flight", e));
    }
    RespDecoder.RespProtocolException junk = strayBytes;
    if (junk != null || buf.isReadable()) {
      // The reply came whole; what followed it answers nothing, so the stream can no longer be
      // trusted.
      strayBytes = null;
      closeConnection(MuxReplies.malformed(
          node,
          junk != null
              ? junk
              : new RespDecoder.RespProtocolException("bytes with no request outstanding"),
          0));
    }
    answeredAfter(now);
    r.accept(raw);
    r.finish();
    return r;
  }

  /**
   * The socket's request was answered: the socket is free again, and a channel drain held back
   * while the request was stale runs now.
   */
  private void answeredAfter(long written) {
    unanswered = false;
    release(true);
    if (ticker.nanoTime() - written > MuxCallerSockets.STALE_NANOS) {
      pool.staleAnswered();
    }
  }

  /**
   * Whether the request here has waited for its reply longer than {@link
   * MuxCallerSockets#STALE_NANOS}, or its caller gave up on it: the node may be frozen.
   */
  boolean staleAt(long now) {
    return owed || (unanswered && now - writtenNanos > MuxCallerSockets.STALE_NANOS);
  }

  private JedisConnectionException failed(IOException e) {
    return e instanceof EOFException
        ? new JedisConnectionException(
            "connection to " + node + " was closed by the peer with 1 requests in flight")
        : new JedisConnectionException(
            "connection to " + node + " failed (" + e + ") with 1 requests in flight", e);
  }

  /** The socket failed under a request: it fails with {@code e}, and so does the whole connection. */
  private MuxRequest.Single broke(MuxRequest.Single r, JedisConnectionException e) {
    closeConnection(e);
    unanswered = false;
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
    books.markClosing();
    closer.failFromAnyThread(e);
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
      long left = deadline - ticker.nanoTime();
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
    if (waited > socketTimeoutNanos) {
      closer.fail(MuxExpiry.hung(node, endpoint.settings().socketTimeout(), waited));
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
      closer.fail(n -> new JedisConnectionException(
          "connection to " + node + " failed (" + e + ") with " + n + " requests in flight", e));
      return true;
    }
    if (answered) {
      awaiting = false;
      reply = null; // the late reply of a request that timed out: dropped
      owed = false;
      pool.paid();
      answeredAfter(writtenNanos);
    }
    return false;
  }

  /** Gives the socket back; with {@code permit}, the in-flight permit too. */
  void release(boolean permit) {
    if (permit) {
      books.givePermit();
    }
    held.set(false);
  }

  /** Connects and runs the handshake on the caller's thread, by {@code deadline}; false when it failed. */
  private boolean open(long deadline) {
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      s.setKeepAlive(true);
      s.connect(
          endpoint.address(),
          MuxBootstrap.connectMillis(endpoint.settings(), deadline - ticker.nanoTime()));
      in = s.getInputStream();
      out = s.getOutputStream();
      buf = Unpooled.buffer(READ_CHUNK);
      decoder = new RespDecoder(this, endpoint.settings().maxBulkBytes());
      socket = s;
      MuxHandshake.run(
          node, endpoint.settings(), endpoint.consistency(), deadline, this::handshakeStep);
      if (books.closing()) {
        closeSocket();
        return false;
      }
      return true;
    } catch (IOException | RuntimeException e) {
      log.debug(
          "no caller socket to {}, the shared channel carries its commands for now: {}",
          node,
          e.toString());
      socket = s;
      closeSocket();
      pool.openFailed();
      return false;
    }
  }

  private Object handshakeStep(CommandArguments cmd, String what, long deadlineNanos) {
    long deadline = Math.min(deadlineNanos, ticker.nanoTime() + socketTimeoutNanos);
    try {
      out.write(RespEncoder.encodeToArray(cmd));
      return readReply(deadline);
    } catch (IOException | RespDecoder.RespProtocolException e) {
      throw new JedisConnectionException(
          what + " on the new connection to " + node + " failed: " + e, e);
    }
  }

  /** Any thread: closes the socket (a caller blocked on it wakes and fails); an owed reply's permit comes back. */
  void close() {
    closeSocket();
    if (owed) {
      owed = false;
      pool.paid();
      unanswered = false;
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
