package io.dyno.core.engine.internal;

/** The work of one attempt on one borrowed connection. May run several times (retries, failover). */
@FunctionalInterface
public interface Operation<C extends NodeConnection, R> {
  /**
   * Runs one attempt. The connection is the caller's only until this returns: do not keep it.
   *
   * @param connection a borrowed connection, at the call's consistency level
   * @return the attempt's result
   * @throws Exception the driver's failure, classified by the connection factory to decide on retry
   *     and failover
   */
  R run(C connection) throws Exception;
}
