package io.dyno.recipes.lock;

import io.dyno.core.Host;
import io.dyno.core.routing.DynomiteHash;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Picks a resource's voting nodes from the host list: an odd number, one per rack first, then
 * round-robin over racks, so losing one rack costs at most ceil(n / racks) votes.
 *
 * <p>The choice is a pure function of (host list, resource, wanted count) and ignores host status on
 * purpose: every client with the same host list must pick the same voters, or two clients could
 * each win a "majority" of different voting sets. A DOWN host stays a voter that does not answer.
 */
final class VoterSelection {
  private VoterSelection() {}

  static List<Host> select(List<Host> hosts, String resource, int wanted) {
    Map<String, List<Host>> byRack = new TreeMap<>();
    for (Host h : hosts) {
      if (h.datastorePort() > 0) {
        byRack
            .computeIfAbsent(h.datacenter() + "/" + h.rack(), k -> new ArrayList<>())
            .add(h);
      }
    }
    if (byRack.isEmpty()) {
      throw new IllegalStateException(
          "lock on '" + resource + "': no voting node available; every host "
              + "needs a datastorePort (the lock talks to each node's Redis directly), hosts were "
              + hosts);
    }
    int eligible = 0;
    List<List<Host>> racks = new ArrayList<>();
    for (List<Host> rack : byRack.values()) {
      // Deduplicate by datastore endpoint and sort, so every client sees the same order.
      rack.sort(Comparator.comparing(VoterSelection::endpoint));
      List<Host> unique = new ArrayList<>();
      for (Host h : rack) {
        if (unique.isEmpty() || !endpoint(unique.get(unique.size() - 1)).equals(endpoint(h))) {
          unique.add(h);
        }
      }
      racks.add(unique);
      eligible += unique.size();
    }
    int count = Math.min(wanted, eligible);
    if (count % 2 == 0) {
      count--; // an even voting set tolerates no more failures than the odd one below it
    }
    // Rotate racks and hosts by the resource's hash so that different resources load different
    // nodes.
    int spin = (int) (DynomiteHash.hash(resource) & 0x7fffffff);
    List<Host> voters = new ArrayList<>(count);
    for (int round = 0; voters.size() < count; round++) {
      for (int i = 0; i < racks.size() && voters.size() < count; i++) {
        List<Host> rack = racks.get((spin + i) % racks.size());
        if (round < rack.size()) {
          voters.add(rack.get((spin + round) % rack.size()));
        }
      }
    }
    return List.copyOf(voters);
  }

  static String endpoint(Host h) {
    return h.address() + ":" + h.datastorePort();
  }
}
