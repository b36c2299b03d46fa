package io.dyno.core.engine.internal;

import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import java.time.Duration;

/** Opens driver connections and tells dyno-core what a driver's exception means. */
public interface NodeConnectionFactory<C extends NodeConnection> {

  /**
   * Opens a connection to {@code host}, bounded by {@code connectTimeout}. Called from the engine's
   * I/O threads and callers' threads at once: must be thread-safe.
   *
   * @param host the node (its address and port, or datastore port in datastore mode)
   * @param connectTimeout how long connecting may take
   * @param socketTimeout the read timeout of each command on the connection
   * @return an open connection
   * @throws Exception when the connection cannot be opened (classified by {@link #classify})
   */
  C open(Host host, Duration connectTimeout, Duration socketTimeout) throws Exception;

  /**
   * Classifies a failure thrown by an operation on a connection of this factory, for a failure the
   * driver knows to have been sent (the default {@link #report}).
   *
   * @param failure what the operation threw
   * @return what it means for retry, failover and node health
   */
  FailureKind classify(Throwable failure);

  /**
   * Everything the engine needs to know about a failed attempt, in one answer: whether the command
   * was sent, its {@link FailureKind}, whether the same node may take it again. The default: every
   * failure was sent, as {@link #classify} says. A transport that can refuse a command before any of
   * it leaves (the multiplexed one, at its in-flight limit or when its connection closes first)
   * answers {@link FailureReport#notSent}; the engine then treats it as a pool timeout: another
   * replica may take it whatever its idempotency, and neither the connection nor the node's health
   * pays for it.
   *
   * @param failure what the attempt threw
   * @return whether it was sent, its kind, and whether the same node may take it again
   */
  default FailureReport report(Throwable failure) {
    return FailureReport.sent(classify(failure));
  }

  /**
   * True when the calling thread is one of this transport's I/O threads, which must never block: an
   * asynchronous call started there (a callback chaining another call) is handed to the engine's
   * I/O executor before it borrows, connects or sends.
   *
   * @return true on one of this transport's I/O threads
   */
  default boolean onTransportThread() {
    return false;
  }

  /**
   * True when an attempt holds its thread until the reply (a socket per connection, as a pooled
   * transport does, even for an asynchronous call); false when the reply comes later, on the
   * transport's own threads (the default, and the multiplexed transport). A hedged read on a
   * transport that blocks runs its attempts on the engine's threads, so that the caller is free to
   * take whichever answer comes first.
   *
   * @return true when an operation returns only once its reply is in
   */
  default boolean blocksUntilReply() {
    return false;
  }

  /**
   * {@code host} (as passed to {@link #open}) left the topology and its pool was drained: release
   * whatever is kept for it beyond its connections (shared connections, meters). Requests still on
   * their way there should be given the socket timeout to finish.
   *
   * @param host the node that left
   */
  default void nodeLeft(Host host) {}
}
