package io.dyno.core.engine.internal;

import java.util.concurrent.CompletableFuture;

/**
 * The work of one attempt of an asynchronous call: sends on the borrowed connection and returns
 * the reply's future without waiting for it. The connection goes back to its pool as soon as this
 * returns, so the transport must carry the reply without it (the multiplexed transport does). A
 * blocking transport may return an already completed future; it is then settled before the
 * connection goes back. The future must complete, one way or another, within the connection's
 * read timeout. May run several times (retries, failover, hedging).
 */
@FunctionalInterface
public interface AsyncOperation<C extends NodeConnection, R> {
  /**
   * Sends one attempt without waiting for its reply.
   *
   * @param connection a borrowed connection, at the call's consistency level; goes back to its pool
   *     when this returns
   * @return the reply's future, completed (or failed) within the connection's read timeout
   * @throws Exception when the attempt cannot be sent (classified by the connection factory)
   */
  CompletableFuture<R> start(C connection) throws Exception;
}
