package io.dyno.core.routing.internal;

import io.dyno.core.Host;
import io.dyno.core.routing.LoadBalancing;
import io.dyno.core.routing.Topology;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Chooses, for one request, the ordered nodes to try: the first is the preferred node, the rest are
 * failover candidates in order. Returned lists are precomputed by the topology: do not modify them.
 */
public interface Router {

  LoadBalancing loadBalancing();

  /** Nodes for a request on {@code key} (hash tag applied). */
  List<Host> route(Topology topology, CharSequence key);

  /** Nodes for a request on a binary {@code key} (hash tag applied). */
  List<Host> route(Topology topology, byte[] key);

  /** Nodes for a request without a key (PING, scripts, …): spread over the local rack, then the others. */
  List<Host> routeKeyless(Topology topology);

  static Router create(LoadBalancing loadBalancing) {
    switch (loadBalancing) {
      case TOKEN_AWARE:
        return new TokenAware();
      case ROUND_ROBIN:
        return new RoundRobin();
      default:
        throw new IllegalArgumentException("unknown load balancing " + loadBalancing);
    }
  }

  static Router tokenAware() {
    return new TokenAware();
  }

  /** Owners of the key's token; keyless requests rotate like {@link RoundRobin}. */
  final class TokenAware implements Router {
    private final AtomicLong sequence = new AtomicLong();

    private TokenAware() {}

    @Override
    public LoadBalancing loadBalancing() {
      return LoadBalancing.TOKEN_AWARE;
    }

    @Override
    public List<Host> route(Topology topology, CharSequence key) {
      return topology.replicas(topology.hasher().hash(key));
    }

    @Override
    public List<Host> route(Topology topology, byte[] key) {
      return topology.replicas(topology.hasher().hash(key));
    }

    @Override
    public List<Host> routeKeyless(Topology topology) {
      return topology.roundRobin(sequence.getAndIncrement());
    }

    @Override
    public String toString() {
      return "Router{TOKEN_AWARE}";
    }
  }

  /** Ignores keys: each call moves to the next local-rack node; the others follow as failover. */
  final class RoundRobin implements Router {
    private final AtomicLong sequence = new AtomicLong();

    private RoundRobin() {}

    @Override
    public LoadBalancing loadBalancing() {
      return LoadBalancing.ROUND_ROBIN;
    }

    @Override
    public List<Host> route(Topology topology, CharSequence key) {
      return routeKeyless(topology);
    }

    @Override
    public List<Host> route(Topology topology, byte[] key) {
      return routeKeyless(topology);
    }

    @Override
    public List<Host> routeKeyless(Topology topology) {
      return topology.roundRobin(sequence.getAndIncrement());
    }

    @Override
    public String toString() {
      return "Router{ROUND_ROBIN}";
    }
  }
}
