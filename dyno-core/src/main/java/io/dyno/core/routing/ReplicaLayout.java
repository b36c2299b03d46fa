package io.dyno.core.routing;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.routing.Topology.TokenRange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Every answer of a {@link TokenRingTopology}, computed once so that lookups are an array read.
 *
 * <p>All racks' tokens merged give the segment ends; for each segment and each rotation the UP
 * owners are listed local rack first, then the local datacenter's other racks, then the other
 * datacenters. The fallback groups are rotated so that one failed node's keys spread over every
 * other rack instead of landing on one. Equal lists are stored once (neighbouring segments and
 * rotations often yield the same owners), which saves memory on a large ring.
 */
final class ReplicaLayout {
  /** Upper bound on precomputed rotations (memory: segments x rotations lists). */
  private static final int MAX_ROTATIONS = 120;

  final long[] segmentEnds;
  final int rotations;
  /** Indexed {@code segment * rotations + rotation}. */
  final List<Host>[] replicaLists;

  final List<TokenRange> tokenRanges;
  /** Indexed by {@code sequence mod length}. */
  final List<Host>[] roundRobinLists;

  /** UP nodes in ring order (datacenter, rack, token). */
  final List<Host> upHosts;

  final List<Host> downHosts;

  ReplicaLayout(List<HostToken> hostTokens, RackGroups groups) {
    this.rotations = rotations(groups);
    TreeSet<Long> ends = new TreeSet<>();
    for (HostToken ht : hostTokens) {
      ends.add(ht.token());
    }
    this.segmentEnds = ends.stream().mapToLong(Long::longValue).toArray();

    Map<List<Host>, List<Host>> interned = new HashMap<>();
    @SuppressWarnings("unchecked")
    List<Host>[] lists = new List[segmentEnds.length * rotations];
    List<TokenRange> ranges = new ArrayList<>(segmentEnds.length);
    for (int s = 0; s < segmentEnds.length; s++) {
      long end = segmentEnds[s];
      for (int r = 0; r < rotations; r++) {
        List<Host> owners = List.copyOf(owners(groups, end, r));
        lists[s * rotations + r] = interned.computeIfAbsent(owners, k -> k);
      }
      long start = segmentEnds[(s + segmentEnds.length - 1) % segmentEnds.length];
      ranges.add(new TokenRange(start, end, lists[s * rotations + s % rotations]));
    }
    this.replicaLists = lists;
    this.tokenRanges = List.copyOf(ranges);

    List<Host> up = new ArrayList<>();
    List<Host> down = new ArrayList<>();
    for (TreeMap<String, RackRing> racks : groups.byDatacenter.values()) {
      for (RackRing r : racks.values()) {
        for (Host h : r.owners()) {
          (h.isUp() ? up : down).add(h);
        }
      }
    }
    this.upHosts = List.copyOf(up);
    this.downHosts = List.copyOf(down);
    this.roundRobinLists = roundRobinLists(groups);
  }

  /**
   * Enough rotations that every same-datacenter rack and every remote datacenter's rack comes
   * first equally often; capped, since each rotation costs one list per segment.
   */
  private static int rotations(RackGroups groups) {
    int sameDc = groups.sameDatacenter.size();
    int remoteDcs = groups.remote.size();
    int remoteCycle = 1;
    for (List<RackRing> racks : groups.remote) {
      remoteCycle = lcm(remoteCycle, racks.size());
    }
    int rot = lcm(Math.max(1, sameDc), remoteDcs * remoteCycle == 0 ? 1 : remoteDcs * remoteCycle);
    if (rot > MAX_ROTATIONS) {
      rot = Math.max(sameDc, Math.max(remoteDcs, remoteCycle));
    }
    return Math.max(1, rot);
  }

  /** The UP owners of the segment ending at {@code end}, in the order of rotation {@code r}. */
  private static List<Host> owners(RackGroups groups, long end, int r) {
    List<Host> owners = new ArrayList<>();
    if (groups.local != null) {
      addUp(owners, groups.local.ownerOf(end));
    }
    List<RackRing> sameDc = groups.sameDatacenter;
    for (int i = 0; i < sameDc.size(); i++) {
      addUp(owners, sameDc.get((r + i) % sameDc.size()).ownerOf(end));
    }
    int dcs = groups.remote.size();
    for (int d = 0; d < dcs; d++) {
      // The datacenter order rotates first; the rack order within each datacenter after a full
      // turn.
      List<RackRing> racks = groups.remote.get((r % dcs + d) % dcs);
      int shift = r / dcs;
      for (int i = 0; i < racks.size(); i++) {
        addUp(owners, racks.get((shift + i) % racks.size()).ownerOf(end));
      }
    }
    return owners;
  }

  private static void addUp(List<Host> out, Host h) {
    if (h.isUp()) {
      out.add(h);
    }
  }

  private static List<Host>[] roundRobinLists(RackGroups groups) {
    List<List<Host>> tiers = new ArrayList<>();
    tiers.add(groups.local == null ? List.of() : upOf(List.of(groups.local)));
    tiers.add(upOf(groups.sameDatacenter));
    tiers.add(upOf(groups.remote.stream().flatMap(List::stream).collect(Collectors.toList())));
    int n = 1;
    for (List<Host> tier : tiers) {
      if (!tier.isEmpty()) {
        n = tier.size(); // the first non-empty tier sets the cycle
        break;
      }
    }
    @SuppressWarnings("unchecked")
    List<Host>[] out = new List[n];
    for (int i = 0; i < n; i++) {
      List<Host> order = new ArrayList<>();
      for (List<Host> tier : tiers) {
        for (int j = 0; j < tier.size(); j++) {
          order.add(tier.get((i + j) % tier.size()));
        }
      }
      out[i] = List.copyOf(order);
    }
    return out;
  }

  private static List<Host> upOf(List<RackRing> rings) {
    List<Host> out = new ArrayList<>();
    for (RackRing r : rings) {
      for (Host h : r.owners()) {
        if (h.isUp()) {
          out.add(h);
        }
      }
    }
    return out;
  }

  private static int lcm(int a, int b) {
    int x = a;
    int y = b;
    while (y != 0) {
      int t = x % y;
      x = y;
      y = t;
    }
    long l = (long) a / x * b;
    return l > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) l;
  }
}
