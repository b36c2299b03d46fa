package io.dyno.jedis.internal;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.DynoException;
import io.dyno.core.Host;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.util.SafeEncoder;

/** A {@link JedisNodeConnection} over one Jedis {@link Connection} (a socket of its own); not thread-safe (one borrower at a time). */
public final class SocketNodeConnection implements JedisNodeConnection {
  private final Host host;
  private final Connection connection;
  private final boolean datastore;
  private ConsistencyLevel consistency;
  private volatile boolean closed;

  SocketNodeConnection(Host host, Connection connection, boolean datastore) {
    this.host = host;
    this.connection = connection;
    this.datastore = datastore;
  }

  @Override
  public Host host() {
    return host;
  }

  @Override
  public ConsistencyLevel consistency() {
    return consistency;
  }

  @Override
  public void setConsistency(ConsistencyLevel level) {
    if (datastore) {
      throw new DynoException("consistency " + level + " was asked of " + host
          + " in datastore mode (straight to Redis), where it has no meaning");
    }
    // Alone and awaited: Dynomite drops anything pipelined behind it.
    Object reply = connection.executeCommand(new CommandArguments(DYNO_CONFIG).add(level.name()));
    String status = reply instanceof byte[] b ? SafeEncoder.encode(b) : String.valueOf(reply);
    if (!"OK".equals(status)) {
      connection.setBroken();
      throw new DynoException(
          "node " + host + " answered " + status + " to DYNO_CONFIG:CONN_CONSISTENCY " + level);
    }
    consistency = level;
  }

  @Override
  public void ping() {
    Object reply = connection.executeCommand(new CommandArguments(Protocol.Command.PING));
    String status = reply instanceof byte[] b ? SafeEncoder.encode(b) : String.valueOf(reply);
    if (!"PONG".equals(status)) {
      throw new DynoException("node " + host + " answered " + status + " to PING");
    }
  }

  /**
   * The engine caps a run's reads at the call's deadline through this; Jedis's socket timeout is
   * also what blocking commands return to after their infinite wait.
   */
  @Override
  public void setReadTimeout(Duration timeout) {
    connection.setSoTimeout(Math.toIntExact(Math.max(1, timeout.toMillis())));
  }

  @Override
  public Object execute(CommandArguments args) {
    return connection.executeCommand(args);
  }

  @Override
  public void send(List<CommandArguments> commands) {
    for (CommandArguments c : commands) {
      connection.sendCommand(c);
    }
    connection.getMany(0); // flushes the writes without reading (Connection.flush is not public)
  }

  @Override
  public List<Object> receive(int n) {
    return connection.getMany(n);
  }

  /** The underlying Jedis connection (for tests and for scan). */
  public Connection jedisConnection() {
    return connection;
  }

  @Override
  public boolean isBroken() {
    return closed
        || connection.isBroken()
        || !connection.isConnected()
        || (connection instanceof CheckedConnection c && c.hasUnreadBytes());
  }

  /**
   * Closes the socket under the borrower's blocked read (Jedis's own way to abort one): that read
   * fails at once as a connection failure, and the connection counts as broken from then on.
   */
  @Override
  public void abandon() {
    try {
      connection.forceDisconnect();
    } catch (IOException | RuntimeException e) {
      // already closed or closing: the borrower's read fails either way
    }
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      connection.close();
    }
  }

  @Override
  public String toString() {
    return "SocketNodeConnection{" + host.id()
        + (datastore ? " datastore:" + host.datastorePort() : "") + "}";
  }
}
