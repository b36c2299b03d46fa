package io.dyno.jedis.internal;

import io.dyno.core.Host;
import io.dyno.core.spi.FailureKind;
import io.dyno.core.spi.NodeConnectionFactory;
import java.net.SocketTimeoutException;
import java.time.Duration;
import javax.net.ssl.SSLSocketFactory;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Opens Jedis connections that are safe for Dynomite: plain RESP2 without any handshake (no HELLO), no
 * {@code CLIENT SETINFO}, no AUTH, no SELECT, no client name. In datastore mode the connection goes
 * to the node's Redis port ({@link Host#datastorePort()}), where password, TLS and database apply.
 */
public final class JedisConnectionFactory implements NodeConnectionFactory<JedisNodeConnection> {

  /** Settings for datastore mode (straight to Redis); ignored through Dynomite. */
  public record Datastore(boolean enabled, String password, int database, boolean ssl, SSLSocketFactory sslSocketFactory) {
    public static Datastore off() {
      return new Datastore(false, null, 0, false, null);
    }
  }

  private final Datastore datastore;

  public JedisConnectionFactory(Datastore datastore) {
    this.datastore = datastore;
  }

  public boolean datastoreMode() {
    return datastore.enabled();
  }

  @Override
  public JedisNodeConnection open(Host host, Duration connectTimeout, Duration socketTimeout) {
    DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
        // Jedis 8 sends HELLO for an explicit protocol (even RESP2) and when negotiating; only "no
        // protocol, no negotiation" speaks plain RESP2 without a handshake (pinned by a test).
        .protocol(null)
        .autoNegotiateProtocol(false)
        .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
        .connectionTimeoutMillis(Math.toIntExact(connectTimeout.toMillis()))
        .socketTimeoutMillis(Math.toIntExact(socketTimeout.toMillis()));
    int port = host.port(); // in datastore mode dyno-core hands us the node's Redis port here
    if (datastore.enabled()) {
      String password = datastore.password() != null ? datastore.password() : host.password();
      if (password != null) {
        config.password(password);
      }
      if (datastore.database() != 0) {
        config.database(datastore.database());
      }
      if (datastore.ssl()) {
        config.ssl(true);
        if (datastore.sslSocketFactory() != null) {
          config.sslSocketFactory(datastore.sslSocketFactory());
        }
      }
    }
    Connection c = new CheckedConnection(new HostAndPort(host.address(), port), config.build());
    return new JedisNodeConnection(host, c, datastore.enabled());
  }

  @Override
  public FailureKind classify(Throwable failure) {
    return classifyFailure(failure);
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
    if (failure instanceof JedisDataException) {
      return FailureKind.isDynomiteReplicaError(failure.getMessage()) ? FailureKind.REPLICA : FailureKind.DATA;
    }
    return FailureKind.CONNECTION;
  }
}
