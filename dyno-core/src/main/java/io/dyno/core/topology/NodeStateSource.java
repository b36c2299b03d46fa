package io.dyno.core.topology;

import io.dyno.core.Host;
import java.time.Duration;
import java.util.Objects;
import java.util.function.ToIntFunction;

/**
 * Where a client learns each node's {@link NodeState}. The engine asks it for every node of the
 * topology every {@code nodeStatePollInterval} (on its I/O threads, never on a call's path), and
 * once for all nodes as it starts, and keeps calls off a node that does not {@linkplain
 * NodeState#serves() serve} (any state but {@link NodeState#NORMAL}) while another replica can
 * take them.
 *
 * <pre>{@code
 * NodeStateSource.dynomiteAdmin(22222)                        // every node's admin port is 22222
 * NodeStateSource.dynomiteAdmin(h -> adminPorts.get(h), Duration.ofMillis(500))   // one per node
 * }</pre>
 */
@FunctionalInterface
public interface NodeStateSource {
  /**
   * The node's state now. Called from the engine's I/O threads, for several nodes at once.
   *
   * @param host a node of the topology
   * @return its state
   * @throws Exception when it cannot be learnt; the engine then treats the node by its connection
   *     health alone until an answer comes
   */
  NodeState stateOf(Host host) throws Exception;

  /**
   * Reads {@code GET /state/get_state} from Dynomite's admin (stats) port, the same port on every
   * node, with a one-second connect and read timeout.
   *
   * @param adminPort the admin port, 1..65535 (Dynomite's default: 22222)
   * @return the source
   * @throws IllegalArgumentException when the port is out of range
   */
  static NodeStateSource dynomiteAdmin(int adminPort) {
    if (adminPort < 1 || adminPort > 65535) {
      throw new IllegalArgumentException("admin port must be 1..65535, not " + adminPort);
    }
    return dynomiteAdmin(h -> adminPort, Duration.ofSeconds(1));
  }

  /**
   * Reads {@code GET /state/get_state} from each node's Dynomite admin (stats) port, at the node's
   * address.
   *
   * @param adminPort each node's admin port (called on the engine's I/O threads); not null
   * @param timeout how long connecting, and then reading the answer, may each take; positive
   * @return the source
   * @throws IllegalArgumentException when the timeout is not positive
   */
  static NodeStateSource dynomiteAdmin(ToIntFunction<Host> adminPort, Duration timeout) {
    Objects.requireNonNull(adminPort, "adminPort");
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, not " + timeout);
    }
    return new AdminStateReader(adminPort, timeout);
  }
}
