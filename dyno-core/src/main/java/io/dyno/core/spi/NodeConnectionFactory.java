package io.dyno.core.spi;

import io.dyno.core.Host;
import java.time.Duration;

/** Opens driver connections and tells dyno-core what a driver's exception means. */
public interface NodeConnectionFactory<C extends NodeConnection> {

  /** Opens a connection to {@code host}, bounded by {@code connectTimeout}. */
  C open(Host host, Duration connectTimeout, Duration socketTimeout) throws Exception;

  /** Classifies a failure thrown by an operation on a connection of this factory. */
  FailureKind classify(Throwable failure);
}
