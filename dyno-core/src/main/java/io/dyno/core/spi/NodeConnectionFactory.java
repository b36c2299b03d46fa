package io.dyno.core.spi;

import io.dyno.core.Host;
import java.time.Duration;

/** Opens driver connections and tells dyno-core what a driver's exception means. */
public interface NodeConnectionFactory<C extends NodeConnection> {

  /** Opens a connection to {@code host}, bounded by {@code connectTimeout}. */
  C open(Host host, Duration connectTimeout, Duration socketTimeout) throws Exception;

  /** Classifies a failure thrown by an operation on a connection of this factory. */
  FailureKind classify(Throwable failure);

  /**
   * True when {@code failure} says the connection refused the command before sending any of it
   * because it was at capacity (the multiplexed transport's in-flight limit). The engine then
   * treats it as a pool timeout: the command was not sent, so another replica may take it whatever
   * its idempotency, and neither the connection nor the node's health pays for it.
   */
  default boolean refusedUnsent(Throwable failure) {
    return false;
  }

  /**
   * True when {@code failure}, one {@link #refusedUnsent} accepts, came from a connection that closed
   * before the command left: nothing is wrong with the command or the node's capacity, so the same
   * node may take it again (on a new connection) when no untried replica is left.
   */
  default boolean resendableToSameNode(Throwable failure) {
    return false;
  }

  /**
   * True when the calling thread is one of this transport's I/O threads, which must never block: an
   * asynchronous call started there (a callback chaining another call) is handed to the engine's
   * I/O executor before it borrows, connects or sends.
   */
  default boolean onTransportThread() {
    return false;
  }

  /**
   * {@code host} (as passed to {@link #open}) left the topology and its pool was drained: release
   * whatever is kept for it beyond its connections (shared connections, meters). Requests still on
   * their way there should be given the socket timeout to finish.
   */
  default void nodeLeft(Host host) {}
}
