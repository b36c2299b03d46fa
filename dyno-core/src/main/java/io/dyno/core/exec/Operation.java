package io.dyno.core.exec;

import io.dyno.core.spi.NodeConnection;

/** The work of one attempt on one borrowed connection. May run several times (retries, failover). */
@FunctionalInterface
public interface Operation<C extends NodeConnection, R> {
  R run(C connection) throws Exception;
}
