package io.dyno.core.engine.internal;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import java.time.Duration;

/**
 * One open connection to one node, implemented by a driver module (dyno-jedis wraps a Jedis
 * connection). dyno-core pools these, validates them and sets their consistency; it never
 * looks inside.
 */
public interface NodeConnection extends AutoCloseable {
  /** {@return the node this connection is open to} */
  Host host();

  /** {@return the level this connection currently runs at; null while it is the server's default} */
  ConsistencyLevel consistency();

  /**
   * Sends {@code DYNO_CONFIG:CONN_CONSISTENCY <level>} on its own and waits for {@code +OK}
   * (anything pipelined behind it would be dropped by Dynomite).
   *
   * @param level the level to run at from now on
   * @throws Exception when the server refuses or the connection fails
   */
  void setConsistency(ConsistencyLevel level) throws Exception;

  /**
   * Keep-alive validation: a round trip that must succeed.
   *
   * @throws Exception when the round trip fails
   */
  void ping() throws Exception;

  /**
   * Sets how long a read on this connection may block before it fails with the driver's read
   * timeout (which {@link NodeConnectionFactory#classify} must report as
   * {@link FailureKind#TIMEOUT}). The engine calls it so that a run on a hung node cannot outlive the
   * call's deadline: before a run it caps the read timeout at the time left before the deadline
   * (at half of it when the call could still fail over to an untried replica, so a hung node leaves
   * time for that; never below 1 ms), and after a run whose connection is kept it restores the socket timeout the
   * connection was opened with. It calls this only when the value changes, so a call without a
   * deadline, or with more time left than the socket timeout, never touches the socket. A connection
   * whose read timed out is discarded by the engine and never used again (its reply may still
   * arrive). Like a socket timeout it bounds each blocking read, so it stops a hung node; a node that
   * trickles a long reply can still hold a run past the deadline. The default does nothing: runs are
   * then bounded by the socket timeout alone.
   *
   * @param timeout the longest a read may block from now on; positive
   * @throws Exception when the socket refuses the setting
   */
  default void setReadTimeout(Duration timeout) throws Exception {}

  /**
   * Writes {@code value} at {@code key} through this node with a time to live ({@code SET key value
   * PX ttl}), for the engine's replication check of a node coming back into rotation: the probe key
   * must then be readable, through its owner in every other rack, with that value. The default
   * throws {@link UnsupportedOperationException}, and the engine then readmits a node that answers
   * its probe without checking replication.
   *
   * @param key the probe key (owned by this node in its rack)
   * @param value the value to write
   * @param ttl how long the key lives
   * @throws Exception when the write fails
   */
  default void probeWrite(byte[] key, byte[] value, Duration ttl) throws Exception {
    throw new UnsupportedOperationException("no replication probe for " + host());
  }

  /**
   * Reads {@code key} through this node ({@code GET}), for the replication check (see
   * {@link #probeWrite}).
   *
   * @param key the probe key
   * @return its value, or null when absent
   * @throws Exception when the read fails
   */
  default byte[] probeRead(byte[] key) throws Exception {
    throw new UnsupportedOperationException("no replication probe for " + host());
  }

  /** {@return true once an I/O error or protocol desync made this connection unusable} */
  /**
   * Called on another thread than the one using this connection, once its node was found silent
   * and taken out of rotation: a call waiting on this connection for a reply fails now (as a
   * connection failure) instead of at its timeout, so that it moves to a replica. The connection
   * is not used again. Must not block. The default does nothing: the call waits out its timeout.
   */
  default void abandon() {}

  boolean isBroken();

  /** Closes the socket. Idempotent. */
  @Override
  void close();
}
