package io.dyno.jedis.internal;

import io.dyno.core.DynoException;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.engine.internal.NodeConnectionFactory;
import io.dyno.jedis.internal.mux.DynomiteWire;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Opens Jedis connections that are safe for Dynomite: plain RESP2 without any handshake (no HELLO), no
 * {@code CLIENT SETINFO}, no AUTH, no SELECT, no client name. In datastore mode the connection goes
 * to the node's Redis port ({@link Host#datastorePort()}), where user/password, TLS and database apply.
 *
 * <p>TLS verifies the server's certificate against the socket factory's trust and, unless turned
 * off, the node's host name (its {@link Host#hostname()}, even when the connection goes to its IP).
 * Through Dynomite, TLS goes to the node's {@link Host#securePort()} (a TLS terminator in front of
 * Dynomite, as Dynomite-manager's {@code secure_port} reports): Dynomite itself speaks no TLS.
 *
 * <p>Secrets never reach a message: connect failures are rethrown with the host and the server's
 * reason (Redis never echoes a password), and {@link Datastore#toString()} masks the password.
 */
public final class JedisConnectionFactory implements NodeConnectionFactory<JedisNodeConnection> {
  private static final Logger log = LoggerFactory.getLogger(JedisConnectionFactory.class);

  /**
   * TLS settings: the socket factory (null: the JVM default), whether the host name is verified, and
   * the context the factory came from when the application gave one (the multiplexed transport
   * needs it: Netty's TLS works on an SSLEngine, which only a context makes).
   */
  public record Tls(SSLSocketFactory socketFactory, boolean verifyHostname, SSLContext context) {
    public Tls(SSLSocketFactory socketFactory, boolean verifyHostname) {
      this(socketFactory, verifyHostname, null);
    }

    /** The context for an SSLEngine: the one given, the JVM default when nothing was given, else an error. */
    public SSLContext engineContext() {
      if (context != null) {
        return context;
      }
      if (socketFactory != null) {
        throw new IllegalArgumentException(
            "transport MULTIPLEXED needs TLS as an SSLContext (its connections use an"
                + " SSLEngine, which a socket factory cannot make): use tlsContext(SSLContext) instead of tls(SSLSocketFactory),"
                + " or transport(Transport.POOLED)");
      }
      try {
        return SSLContext.getDefault();
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("TLS: the JVM has no default SSLContext", e);
      }
    }
  }

  /**
   * Connection settings. Database, user and password apply only in datastore mode (Dynomite closes a
   * connection that sends AUTH or SELECT); {@code tls} (null: plain) applies in both modes.
   */
  public record Datastore(boolean enabled, String user, String password, int database, Tls tls) {
    public static Datastore off() {
      return new Datastore(false, null, null, 0, null);
    }

    /** The password to send to {@code host}: the configured one, else the host's own; null for none. */
    public String passwordFor(Host host) {
      return password != null ? password : host.password();
    }

    @Override
    public String toString() {
      return "Datastore[enabled=" + enabled + ", user=" + user + ", password="
          + (password == null ? "none" : "***")
          + ", database=" + database + ", tls="
          + (tls == null ? "off" : tls.verifyHostname() ? "on" : "on, no hostname check")
          + "]";
    }
  }

  private final Datastore datastore;
  private final Set<Host> warnedPassword = ConcurrentHashMap.newKeySet();
  private final Set<Host> askedWithoutPassword = ConcurrentHashMap.newKeySet();

  public JedisConnectionFactory(Datastore datastore) {
    this.datastore = datastore;
  }

  public boolean datastoreMode() {
    return datastore.enabled();
  }

  /** What datastore mode (straight to Redis) sends on each new connection; disabled through Dynomite. */
  public Datastore datastore() {
    return datastore;
  }

  @Override
  public JedisNodeConnection open(Host host, Duration connectTimeout, Duration socketTimeout) {
    int connectMillis = Math.toIntExact(Math.max(1, connectTimeout.toMillis()));
    DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
        // Jedis 8 sends HELLO for an explicit protocol (even RESP2) and when negotiating; only "no
        // protocol, no negotiation" speaks plain RESP2 without a handshake (pinned by a test).
        .protocol(null)
        .autoNegotiateProtocol(false)
        .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
        .connectionTimeoutMillis(connectMillis)
        .socketTimeoutMillis(Math.toIntExact(socketTimeout.toMillis()));
    int port = host.port(); // in datastore mode dyno-core hands us the node's Redis port here
    String password = null;
    if (datastore.enabled()) {
      password = datastore.passwordFor(host);
      if (password != null) {
        config.password(password);
        if (datastore.user() != null) {
          config.user(datastore.user());
        }
      }
      if (datastore.database() != 0) {
        config.database(datastore.database());
      }
    } else {
      if (host.password() != null && warnedPassword.add(host)) {
        log.warn(
            "node {} carries a password, which is not sent: Dynomite's client port does not accept AUTH"
                + " (it closes the connection). Passwords apply in datastore mode only.",
            host);
      }
      if (datastore.tls() != null) {
        port = securePort(host);
      }
    }
    if (datastore.tls() != null) {
      Tls tls = datastore.tls();
      SSLSocketFactory base = tls.socketFactory() != null
          ? tls.socketFactory()
          : (SSLSocketFactory) SSLSocketFactory.getDefault();
      config
          .ssl(true)
          .sslSocketFactory(new NamedSslSocketFactory(
              base, host.hostname(), tls.verifyHostname(), connectMillis));
    }
    String where =
        host.address() + ":" + port + (datastore.enabled() ? " (Redis, datastore mode)" : "");
    try {
      Connection c = new CheckedConnection(new HostAndPort(host.address(), port), config.build());
      if (datastore.enabled() && password == null && !askedWithoutPassword.contains(host)) {
        // Redis that wants a password says so only when asked something: ask on the first
        // connection
        // to each node, so a missing password fails the start-up clearly instead of the first
        // request.
        // Bounded like the connect; later connections skip it (a frozen node must not hold
        // openers).
        try {
          c.setSoTimeout(connectMillis);
          c.executeCommand(new CommandArguments(Protocol.Command.PING));
          c.setSoTimeout(Math.toIntExact(socketTimeout.toMillis()));
          askedWithoutPassword.add(host);
        } catch (RuntimeException e) {
          c.close();
          throw e;
        }
      }
      return new SocketNodeConnection(host, c, datastore.enabled());
    } catch (JedisDataException e) {
      String m = scrub(e.getMessage(), password);
      if (m != null && m.startsWith("NOAUTH")) {
        throw new JedisAccessControlException(
            where + " requires a password: " + m
                + (password == null
                    ? " (no password is configured: set datastorePassword or the host's password)"
                    : ""),
            e);
      }
      if (e instanceof JedisAccessControlException) {
        throw new JedisAccessControlException(
            where + " refused the credentials"
                + (datastore.user() != null ? " of user '" + datastore.user() + "'" : "") + ": "
                + m,
            e);
      }
      throw new JedisDataException(where + " rejected the connection: " + m, e);
    } catch (JedisConnectionException e) {
      String tlsReason =
          datastore.tls() != null ? DynomiteWire.tlsReason(e, host.hostname()) : null;
      if (tlsReason != null) {
        throw new JedisConnectionException(
            "TLS handshake with " + where + " failed: " + tlsReason, e);
      }
      throw e;
    }
  }

  /** Where TLS goes through Dynomite: the node's secure port (a terminator in front of it), or a clear error. */
  public static int securePort(Host host) {
    if (host.securePort() < 0) {
      throw new DynoException(
          "TLS is on but node " + host + " has no secure port: Dynomite speaks no TLS itself;"
              + " put a TLS terminator in front of it and report its port as the node's securePort"
              + " (secure_port in Dynomite-manager's cluster_describe)");
    }
    return host.securePort();
  }

  private static String scrub(String message, String secret) {
    if (message == null || secret == null || secret.isEmpty()) {
      return message;
    }
    return message.replace(secret, "***");
  }

  @Override
  public FailureKind classify(Throwable failure) {
    return classifyFailure(failure);
  }

  /** A socket of its own per connection: an attempt reads its reply on the thread that sent it. */
  @Override
  public boolean blocksUntilReply() {
    return true;
  }

  /** I/O → CONNECTION, socket timeout → TIMEOUT, Dynomite replica errors → REPLICA, other error replies → DATA. */
  public static FailureKind classifyFailure(Throwable failure) {
    if (failure instanceof JedisConnectionException) {
      for (Throwable t = failure; t != null; t = t.getCause()) {
        if (t instanceof SocketTimeoutException) {
          return FailureKind.TIMEOUT;
        }
      }
      return FailureKind.CONNECTION;
    }
    if (failure instanceof JedisAccessControlException) {
      return FailureKind.CONNECTION;
    }
    if (failure instanceof JedisDataException) {
      return FailureKind.isDynomiteReplicaError(failure.getMessage())
          ? FailureKind.REPLICA
          : FailureKind.DATA;
    }
    return FailureKind.CONNECTION;
  }

  @Override
  public String toString() {
    return "JedisConnectionFactory" + datastore;
  }

  /**
   * Layers TLS with the node's host name (for SNI and name verification) whatever address the
   * socket was opened to: a node known by IP and name is reached by IP and verified by name.
   */
  private static final class NamedSslSocketFactory extends SSLSocketFactory {
    private final SSLSocketFactory delegate;
    private final String hostname;
    private final boolean verifyHostname;

    private final int handshakeMillis;

    NamedSslSocketFactory(
        SSLSocketFactory delegate, String hostname, boolean verifyHostname, int handshakeMillis) {
      this.delegate = delegate;
      this.hostname = hostname;
      this.verifyHostname = verifyHostname;
      this.handshakeMillis = handshakeMillis;
    }

    /**
     * Handshakes at once: through Dynomite nothing is sent on connect, so a lazy handshake would
     * let an untrusted server into the pool and fail the first request instead of the connect.
     */
    @Override
    public Socket createSocket(Socket s, String host, int port, boolean autoClose)
        throws IOException {
      SSLSocket ssl = (SSLSocket) delegate.createSocket(s, hostname, port, autoClose);
      SSLParameters params = ssl.getSSLParameters();
      // "HTTPS" = RFC 2818 name matching (DNS and IP names), done by JSSE during the handshake.
      params.setEndpointIdentificationAlgorithm(verifyHostname ? "HTTPS" : null);
      ssl.setSSLParameters(params);
      int readTimeout = s.getSoTimeout();
      try {
        ssl.setSoTimeout(handshakeMillis); // bounded like the connect
        ssl.startHandshake();
        ssl.setSoTimeout(readTimeout);
      } catch (IOException e) {
        ssl.close();
        throw e;
      }
      return ssl;
    }

    @Override
    public String[] getDefaultCipherSuites() {
      return delegate.getDefaultCipherSuites();
    }

    @Override
    public String[] getSupportedCipherSuites() {
      return delegate.getSupportedCipherSuites();
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
      return delegate.createSocket(host, port);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort)
        throws IOException {
      return delegate.createSocket(host, port, localHost, localPort);
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
      return delegate.createSocket(host, port);
    }

    @Override
    public Socket createSocket(
        InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
      return delegate.createSocket(address, port, localAddress, localPort);
    }
  }
}
