package io.dyno.jedis.internal.mux;

import io.dyno.core.time.Ticker;
import java.time.Duration;
import java.util.Objects;
import javax.net.ssl.SSLContext;

/**
 * Settings of one multiplexed connection, validated when built.
 *
 * @param connectTimeout TCP connect bound (the handshake, AUTH and consistency, is bounded by socketTimeout)
 * @param socketTimeout  when the oldest unanswered request has waited this long the node is taken as
 *                       hung: the connection closes and fails everything in flight (TIMEOUT)
 * @param maxInFlight    requests (a pipeline counts once) written or queued but not answered
 * @param maxWritesInFlight writes (each carrying everything queued when it left) that may await their
 *                       replies; commands submitted meanwhile queue and leave together in the next
 *                       write once one is answered. 0: no bound (write whenever the event loop runs)
 * @param callerSockets  sockets beside the channel, one waiting caller at a time on each, opened as
 *                       concurrency needs them ({@link MuxCallerSockets}). 0: the channel carries all
 * @param inFlightWait   longest a submit waits for room under maxInFlight (within its own timeout),
 *                       like a pool borrow's maxTimeoutWhenExhausted; null: its whole timeout
 * @param timeoutTick    how often deadlines are checked on the event loop: a request fails at most
 *                       this much after its timeout
 * @param maxBulkBytes   largest bulk string accepted in a reply (Redis's own limit is 512 MiB)
 * @param user           AUTH user, or null (datastore mode only: Dynomite closes a connection that sends AUTH)
 * @param password       AUTH password, or null for no AUTH
 * @param database       SELECT after AUTH when not 0 (datastore mode only: Dynomite closes a connection that sends it)
 * @param tls            TLS for the connection, or null for plain TCP
 * @param pingOnOpen     after AUTH and SELECT, a PING whose error reply fails the open (datastore mode
 *                       without a password: Redis that wants one says so only when asked)
 * @param ticker         the clock every timeout and deadline above is measured on (the client's, so
 *                       that the transport and the engine agree; null: {@link Ticker#system()}). The
 *                       waits are real: the event loop checks deadlines every {@code timeoutTick}
 */
public record MuxSettings(
    Duration connectTimeout,
    Duration socketTimeout,
    int maxInFlight,
    int maxWritesInFlight,
    int callerSockets,
    Duration inFlightWait,
    Duration timeoutTick,
    int maxBulkBytes,
    String user,
    String password,
    MuxListener listener,
    int database,
    Tls tls,
    boolean pingOnOpen,
    Ticker ticker) {

  /**
   * TLS: the context that makes each connection's engine, the host name it presents (SNI) and, unless
   * turned off, checks the server's certificate against.
   */
  public record Tls(SSLContext context, String hostname, boolean verifyHostname) {
    public Tls {
      Objects.requireNonNull(context, "TLS context");
      Objects.requireNonNull(hostname, "TLS host name");
    }
  }

  public MuxSettings {
    positive("connectTimeout", connectTimeout);
    positive("socketTimeout", socketTimeout);
    positive("timeoutTick", timeoutTick);
    if (inFlightWait != null) {
      positive("inFlightWait", inFlightWait);
    }
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("maxInFlight must be >= 1, was " + maxInFlight);
    }
    if (maxWritesInFlight < 0) {
      throw new IllegalArgumentException(
          "maxWritesInFlight must be >= 0 (0: no bound), was " + maxWritesInFlight);
    }
    if (callerSockets < 0 || callerSockets > MAX_CALLER_SOCKETS) {
      throw new IllegalArgumentException(
          "callerSockets must be 0.." + MAX_CALLER_SOCKETS + ", was " + callerSockets);
    }
    if (maxBulkBytes < 1) {
      throw new IllegalArgumentException("maxBulkBytes must be >= 1, was " + maxBulkBytes);
    }
    if (user != null && password == null) {
      throw new IllegalArgumentException("a user (" + user + ") was given without a password");
    }
    listener = listener == null ? MuxListener.NONE : listener;
    if (database < 0) {
      throw new IllegalArgumentException("database must be >= 0, was " + database);
    }
    ticker = ticker == null ? Ticker.system() : ticker;
  }

  /** Enough that a node's few concurrent callers each have one; beyond, commands coalesce. */
  public static final int DEFAULT_CALLER_SOCKETS = 8;

  static final int MAX_CALLER_SOCKETS = 64;

  /** connect 2 s, socket 2 s, 1024 in flight (waited for within each request's timeout), one write
   *  awaiting replies at a time on the channel, {@value #DEFAULT_CALLER_SOCKETS} caller sockets, 10
   *  ms tick, 512 MiB bulk, no AUTH. */
  public static MuxSettings defaults() {
    return builder().build();
  }

  /** A builder starting from {@link #defaults()}. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these settings: for a copy with a few of them changed. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** {@link #inFlightWait} in nanoseconds; Long.MAX_VALUE when unbounded (the request's timeout decides). */
  public long inFlightWaitNanos() {
    return inFlightWait == null ? Long.MAX_VALUE : inFlightWait.toNanos();
  }

  /** Settings one at a time; {@link #build} validates them all. */
  public static final class Builder {
    private Duration connectTimeout = Duration.ofSeconds(2);
    private Duration socketTimeout = Duration.ofSeconds(2);
    private int maxInFlight = 1024;
    private int maxWritesInFlight = 1;
    private int callerSockets = DEFAULT_CALLER_SOCKETS;
    private Duration inFlightWait;
    private Duration timeoutTick = Duration.ofMillis(10);
    private int maxBulkBytes = 512 << 20;
    private String user;
    private String password;
    private MuxListener listener = MuxListener.NONE;
    private int database;
    private Tls tls;
    private boolean pingOnOpen;
    private Ticker ticker = Ticker.system();

    private Builder() {}

    private Builder(MuxSettings s) {
      connectTimeout = s.connectTimeout;
      socketTimeout = s.socketTimeout;
      maxInFlight = s.maxInFlight;
      maxWritesInFlight = s.maxWritesInFlight;
      callerSockets = s.callerSockets;
      inFlightWait = s.inFlightWait;
      timeoutTick = s.timeoutTick;
      maxBulkBytes = s.maxBulkBytes;
      user = s.user;
      password = s.password;
      listener = s.listener;
      database = s.database;
      tls = s.tls;
      pingOnOpen = s.pingOnOpen;
      ticker = s.ticker;
    }

    public Builder connectTimeout(Duration d) {
      connectTimeout = d;
      return this;
    }

    public Builder socketTimeout(Duration d) {
      socketTimeout = d;
      return this;
    }

    public Builder maxInFlight(int n) {
      maxInFlight = n;
      return this;
    }

    /** At most {@code n} writes awaiting replies (0: no bound). */
    public Builder maxWritesInFlight(int n) {
      maxWritesInFlight = n;
      return this;
    }

    /** At most {@code n} caller-owned sockets (0: the channel carries everything). */
    public Builder callerSockets(int n) {
      callerSockets = n;
      return this;
    }

    /** Bounds the wait for room under the in-flight limit (null: the request's whole timeout). */
    public Builder inFlightWait(Duration d) {
      inFlightWait = d;
      return this;
    }

    public Builder timeoutTick(Duration d) {
      timeoutTick = d;
      return this;
    }

    public Builder maxBulkBytes(int n) {
      maxBulkBytes = n;
      return this;
    }

    /** AUTH with {@code password}, as {@code user} unless that is null. */
    public Builder auth(String user, String password) {
      this.user = user;
      this.password = password;
      return this;
    }

    public Builder listener(MuxListener l) {
      listener = l;
      return this;
    }

    /** SELECT {@code db} on every new connection, after AUTH. */
    public Builder database(int db) {
      database = db;
      return this;
    }

    /** TLS on every new connection (null: plain). */
    public Builder tls(Tls t) {
      tls = t;
      return this;
    }

    /** A PING after the handshake, its error reply failing the open (see {@link #pingOnOpen}). */
    public Builder pingOnOpen(boolean ping) {
      pingOnOpen = ping;
      return this;
    }

    /** Measures every timeout on {@code t} (tests: a manual clock). */
    public Builder ticker(Ticker t) {
      ticker = t;
      return this;
    }

    /** The settings; an {@link IllegalArgumentException} names the first one out of range. */
    public MuxSettings build() {
      return new MuxSettings(
          connectTimeout,
          socketTimeout,
          maxInFlight,
          maxWritesInFlight,
          callerSockets,
          inFlightWait,
          timeoutTick,
          maxBulkBytes,
          user,
          password,
          listener,
          database,
          tls,
          pingOnOpen,
          ticker);
    }
  }

  @Override
  public String toString() {
    return "MuxSettings[connectTimeout=" + connectTimeout + ", socketTimeout=" + socketTimeout
        + ", maxInFlight="
        + maxInFlight + ", maxWritesInFlight=" + maxWritesInFlight + ", callerSockets="
        + callerSockets + ", inFlightWait="
        + inFlightWait
        + ", timeoutTick=" + timeoutTick + ", maxBulkBytes=" + maxBulkBytes + ", user=" + user
        + ", password=" + (password == null ? "none" : "***") + ", database=" + database
        + ", tls=" + (tls == null ? "off" : tls.verifyHostname() ? "on" : "on, no hostname check")
        + ", pingOnOpen=" + pingOnOpen + "]";
  }

  private static void positive(String name, Duration d) {
    if (d == null) {
      throw new IllegalArgumentException(name + " must be set");
    }
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + d);
    }
  }
}
