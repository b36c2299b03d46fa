package io.dyno.e2e.faults;

import io.dyno.companion.containers.ContainerCluster;
import io.dyno.companion.containers.ContainerNode;
import io.dyno.core.Host;
import io.dyno.core.HostSupplier;
import io.dyno.core.HostToken;
import io.dyno.core.TokenMapSupplier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The cluster as a client of a fault run is told it: every node UP, as a static host list would say
 * (the client must find the fault itself), with nodes optionally reached through other ports (a
 * {@link DelayingProxy} in front of each). Host and token suppliers agree on those ports.
 */
final class ClusterView {
  /** Where a node listens itself, whatever port the clients reach it through. */
  record Address(String host, int port) {}

  private final List<HostToken> tokens;
  private final Host faulted;
  private final Map<String, Address> healthy;

  private ClusterView(List<HostToken> tokens, Host faulted, Map<String, Address> healthy) {
    this.tokens = List.copyOf(tokens);
    this.faulted = faulted;
    this.healthy = Map.copyOf(healthy);
  }

  /** The cluster as it is, every node reached on its own client port. */
  static ClusterView direct(ContainerCluster cluster, ContainerNode faulted) {
    return through(cluster, faulted, Map.of());
  }

  /**
   * The cluster with the nodes {@code portOf} names reached through the port it gives (a proxy in
   * front of each) instead of their client ports.
   */
  static ClusterView through(
      ContainerCluster cluster, ContainerNode faulted, Map<ContainerNode, Integer> portOf) {
    List<HostToken> tokens = new ArrayList<>();
    Map<String, Address> healthy = new LinkedHashMap<>();
    Host faultedHost = null;
    for (ContainerNode n : cluster.nodes()) {
      Host h = n.host();
      Address own = new Address(h.hostname(), h.port());
      if (portOf.containsKey(n)) {
        h = Host.builder(h.hostname(), portOf.get(n))
            .ipAddress(h.ipAddress())
            .rack(h.rack())
            .datacenter(h.datacenter())
            .datastorePort(h.datastorePort())
            .build();
      }
      if (n == faulted) faultedHost = h;
      else healthy.put(h.id(), own);
      tokens.add(new HostToken(n.token(), h));
    }
    return new ClusterView(tokens, faultedHost, healthy);
  }

  /** The nodes but the faulted one: id as the clients see it -> where the node itself listens. */
  Map<String, Address> healthyNodes() {
    return healthy;
  }

  /** The faulted node as the client sees it (its address and the port the client uses). */
  Host faulted() {
    return faulted;
  }

  HostSupplier hostSupplier() {
    List<Host> hosts = tokens.stream().map(HostToken::host).toList();
    return () -> hosts;
  }

  TokenMapSupplier tokenMapSupplier() {
    return (Collection<Host> asked) -> {
      Set<String> ids = new HashSet<>();
      asked.forEach(h -> ids.add(h.id()));
      return tokens.stream().filter(t -> ids.contains(t.host().id())).toList();
    };
  }
}
