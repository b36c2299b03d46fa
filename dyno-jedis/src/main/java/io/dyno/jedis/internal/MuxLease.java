package io.dyno.jedis.internal;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.Host;
import io.dyno.jedis.internal.mux.MuxConnection;
import io.dyno.jedis.internal.mux.MuxNodeChannels;
import io.dyno.jedis.internal.mux.NotSentException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * One borrower's handle on a node's shared connections; as cheap as an object. A failure to open a
 * shared connection for a command (the node refuses the connect, the handshake fails) comes before
 * any of the command left, so it is reported unsent ({@link NotSentException}): the engine may move
 * even a non-idempotent command to another replica, as it does when a pooled socket's borrow fails.
 */
final class MuxLease implements JedisNodeConnection {
  private final MuxTransport transport;
  private final Host host;
  private final MuxNodeChannels channels;
  private final Duration connectTimeout;
  private ConsistencyLevel level;
  private long timeoutNanos;
  private CompletableFuture<List<Object>> sent;

  MuxLease(
      MuxTransport transport,
      Host host,
      MuxNodeChannels channels,
      Duration connectTimeout,
      Duration socketTimeout) {
    this.transport = transport;
    this.host = host;
    this.channels = channels;
    this.connectTimeout = connectTimeout;
    this.timeoutNanos = socketTimeout.toNanos();
  }

  @Override
  public Host host() {
    return host;
  }

  @Override
  public ConsistencyLevel consistency() {
    return level;
  }

  /**
   * Chooses the shared connections that carry {@code level}, opening one now if none is open
   * (within this lease's timeout): a failure here comes before the command is sent, as a
   * consistency switch failing on a pooled socket.
   */
  @Override
  public void setConsistency(ConsistencyLevel level) {
    channels.ensureOpen(level, transport.ticker.nanoTime() + timeoutNanos);
    this.level = level;
  }

  @Override
  public void ping() {
    Object reply = execute(new CommandArguments(Protocol.Command.PING));
    if (!(reply instanceof byte[] b) || !"PONG".equals(new String(b, StandardCharsets.US_ASCII))) {
      throw new JedisConnectionException(host + " answered PING with " + reply);
    }
  }

  /** Bounds how long this lease's next requests wait for their replies. */
  @Override
  public void setReadTimeout(Duration timeout) {
    this.timeoutNanos = Math.max(1_000_000, timeout.toNanos());
  }

  @Override
  public Object execute(CommandArguments args) {
    if (args.isBlocking()) {
      return transport.executeOnOwnSocket(
          host, connectTimeout, Duration.ofNanos(timeoutNanos), args);
    }
    long deadline =
        transport.ticker.nanoTime() + timeoutNanos; // opening a connection counts against it too
    Object reply = await(connection(deadline).call(args, left(deadline), false));
    if (reply instanceof JedisDataException e) {
      throw e; // as a Jedis connection throws an error reply
    }
    return reply;
  }

  @Override
  public CompletableFuture<Object> submit(CommandArguments args) {
    long deadline = transport.ticker.nanoTime() + timeoutNanos;
    try {
      return connection(deadline).submit(args, left(deadline), true);
    } catch (RuntimeException e) { // no connection could be opened: nothing was sent
      return CompletableFuture.failedFuture(e);
    }
  }

  /** The caller waits on its thread: an idle connection lets it write and read on the caller-owned socket. */
  @Override
  public CompletableFuture<Object> submitForWaitingCaller(CommandArguments args) {
    long deadline = transport.ticker.nanoTime() + timeoutNanos;
    try {
      return connection(deadline).call(args, left(deadline), true);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletableFuture<List<Object>> submitAll(List<CommandArguments> commands) {
    long deadline = transport.ticker.nanoTime() + timeoutNanos;
    try {
      return connection(deadline).submitAll(commands, left(deadline));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public void send(List<CommandArguments> commands) {
    long deadline = transport.ticker.nanoTime() + timeoutNanos;
    sent = connection(deadline).submitAll(commands, left(deadline));
  }

  /**
   * A shared connection for this lease's level, opened by {@code deadline} if none is: a failure to
   * open one is reported unsent, naming the node.
   */
  private MuxConnection connection(long deadline) {
    try {
      return channels.connection(level, deadline);
    } catch (NotSentException e) {
      throw e;
    } catch (JedisConnectionException e) {
      throw NotSentException.unreachable(e.getMessage() + " (the command was not sent)", e);
    }
  }

  private long left(long deadline) {
    return Math.max(0, deadline - transport.ticker.nanoTime());
  }

  @Override
  public List<Object> receive(int n) {
    CompletableFuture<List<Object>> f = sent;
    sent = null;
    if (f == null) {
      throw new IllegalStateException("receive without send on a lease to " + host);
    }
    return await(f);
  }

  /** Waits uninterruptibly, as a socket read does (see DynoCommandExecutor): every request ends by its timeout. */
  private static <T> T await(CompletableFuture<T> f) {
    try {
      return f.join(); // the shared connection completes every request: reply, timeout or failure
    } catch (CompletionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      throw new JedisConnectionException(cause);
    }
  }

  /** Leases hold no socket: the shared connections are replaced by the transport when they break. */
  @Override
  public boolean isBroken() {
    return false;
  }

  /**
   * The node was found silent: its shared connections close, failing every request on them (this
   * lease's and the other callers'), which then move to a replica. A probe opens new ones.
   */
  @Override
  public void abandon() {
    channels.abandon("found silent and taken out of rotation");
  }

  @Override
  public void close() {
    sent = null;
  }

  @Override
  public String toString() {
    return "MuxLease{" + host.id() + "}";
  }
}
