package io.dyno.jedis.internal;

import io.dyno.core.Host;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.exec.DynoExecutor;
import io.dyno.core.exec.Operation;
import io.dyno.core.routing.Topology;
import io.dyno.core.spi.NodeConnection;
import java.util.List;

/** Adapts an executor built over plain {@link NodeConnection}s (by a user-given factory) to Jedis connections. */
public final class CastingExecutor implements DynoExecutor<JedisNodeConnection> {
  private final DynoExecutor<NodeConnection> delegate;

  public CastingExecutor(DynoExecutor<NodeConnection> delegate) {
    this.delegate = delegate;
  }

  @Override
  public <R> R execute(String command, byte[] key, boolean idempotent, CallOptions options, Operation<JedisNodeConnection, R> op) {
    return delegate.execute(command, key, idempotent, options, c -> op.run((JedisNodeConnection) c));
  }

  @Override
  public <R> R execute(String command, String key, boolean idempotent, CallOptions options, Operation<JedisNodeConnection, R> op) {
    return delegate.execute(command, key, idempotent, options, c -> op.run((JedisNodeConnection) c));
  }

  @Override
  public <R> R executeOn(String command, List<Host> candidates, boolean idempotent, CallOptions options,
      Operation<JedisNodeConnection, R> op) {
    return delegate.executeOn(command, candidates, idempotent, options, c -> op.run((JedisNodeConnection) c));
  }

  @Override
  public Topology topology() {
    return delegate.topology();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
