package io.dyno.core.engine.internal;

/**
 * An operation in two halves, so that every part of a scattered call is sent before any reply is
 * read (see {@link DynoExecutor#scatter}). Like an {@link Operation} it may run several times
 * (retries, failover): each run is a {@link #send} followed by a {@link #receive} on the same
 * connection.
 */
public interface SplitOperation<C extends NodeConnection, R> {
  /**
   * Writes the part's commands and flushes them; must not wait for replies.
   *
   * @param connection the borrowed connection the part runs on
   * @throws Exception when writing fails (classified by the connection factory)
   */
  void send(C connection) throws Exception;

  /**
   * Reads the replies of what {@link #send} wrote.
   *
   * @param connection the same connection {@link #send} wrote to
   * @return the part's result
   * @throws Exception when reading fails (classified by the connection factory)
   */
  R receive(C connection) throws Exception;
}
