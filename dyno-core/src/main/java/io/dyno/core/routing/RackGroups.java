package io.dyno.core.routing;

import io.dyno.core.HostToken;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The cluster's racks seen from where this client runs: the local rack (if rack affinity is on and
 * the cluster has it), the other racks of the local datacenter, and the racks of every other
 * datacenter. Replica order is built from these groups, in this order. Whatever could not be placed
 * (an unknown local rack or datacenter) becomes a warning, because requests then spread evenly
 * instead of preferring what the user configured.
 */
final class RackGroups {
  /** Datacenters by name, each with its racks by name: the order every list is built in. */
  final TreeMap<String, TreeMap<String, RackRing>> byDatacenter = new TreeMap<>();
  /** The rack tried first, or null when requests spread evenly. */
  final RackRing local;
  /** The local datacenter as the cluster knows it, or null. */
  final String localDatacenter;
  /** The local datacenter's racks other than {@link #local}, by name. */
  final List<RackRing> sameDatacenter = new ArrayList<>();
  /** The other datacenters' racks, one list per datacenter, by name. */
  final List<List<RackRing>> remote = new ArrayList<>();

  final List<String> warnings = new ArrayList<>();

  /**
   * @param hostTokens every node's token (DOWN nodes included)
   * @param localRack the configured local rack, or null
   * @param localDatacenter the configured local datacenter, or null
   * @param rackAffinity whether the local rack is tried first
   */
  RackGroups(
      List<HostToken> hostTokens, String localRack, String localDatacenter, boolean rackAffinity) {
    for (HostToken ht : hostTokens) {
      byDatacenter
          .computeIfAbsent(ht.host().datacenter(), k -> new TreeMap<>())
          .computeIfAbsent(ht.host().rack(), k -> new RackRing(ht.host().datacenter(), k))
          .add(ht);
    }
    byDatacenter.values().forEach(racks -> racks.values().forEach(RackRing::seal));

    String dc = datacenterOf(localRack, localDatacenter);
    // Without rack affinity the local rack only places the client in its datacenter.
    this.local = !rackAffinity || dc == null || localRack == null
        ? null
        : byDatacenter.get(dc).get(localRack);
    if (local == null && rackAffinity) {
      warnings.add(unplacedRack(localRack, dc));
    }
    this.localDatacenter = dc;

    if (dc != null) {
      for (RackRing r : byDatacenter.get(dc).values()) {
        if (r != local) {
          sameDatacenter.add(r);
        }
      }
    }
    for (Map.Entry<String, TreeMap<String, RackRing>> e : byDatacenter.entrySet()) {
      if (!e.getKey().equals(dc)) {
        remote.add(new ArrayList<>(e.getValue().values()));
      }
    }
  }

  /**
   * The configured datacenter if the cluster has it; otherwise the one datacenter holding the
   * configured rack (configuration may name a rack only); otherwise null.
   */
  private String datacenterOf(String localRack, String localDatacenter) {
    String dc = localDatacenter;
    if (dc != null && !byDatacenter.containsKey(dc)) {
      warnings.add("local datacenter '" + dc + "' is not one of the cluster's datacenters "
          + byDatacenter.keySet() + ": spreading requests evenly over racks");
      dc = null;
    }
    if (dc == null && localRack != null) {
      List<String> withRack = byDatacenter.entrySet().stream()
          .filter(e -> e.getValue().containsKey(localRack))
          .map(Map.Entry::getKey)
          .collect(Collectors.toList());
      if (withRack.size() == 1) {
        dc = withRack.get(0);
      }
    }
    return dc;
  }

  private String unplacedRack(String localRack, String dc) {
    String all = byDatacenter.values().stream()
        .flatMap(r -> r.values().stream())
        .map(RackRing::name)
        .collect(Collectors.joining(", ", "[", "]"));
    return (localRack == null
            ? "local rack is not configured (nor LOCAL_RACK / EC2_AVAILABILITY_ZONE)"
            : "local rack '" + localRack + "'"
                + (dc != null ? " in datacenter '" + dc + "'" : "")
                + " is not one of the cluster's racks " + all)
        + ": spreading requests evenly over racks instead of preferring one";
  }
}
