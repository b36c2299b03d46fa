package io.dyno.companion.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The token rings of every rack as one node sees them; immutable. */
final class Ring {
  /** One rack's nodes in token order. */
  record Rack(String datacenter, String name, RingEntry[] nodes) {
    /** The owner of {@code hash}: smallest token {@code >= hash}, wrapping to the smallest. */
    RingEntry owner(long hash) {
      for (RingEntry e : nodes) {
        if (e.token() >= hash) {
          return e;
        }
      }
      return nodes[0];
    }
  }

  final RingEntry self;
  final Rack localRack;
  /** Racks of the local datacenter, local rack first. */
  final List<Rack> localDcRacks;
  /** Racks of other datacenters. */
  final List<Rack> remoteDcRacks;

  final List<RingEntry> all;

  Ring(RingEntry self, List<RingEntry> entries) {
    this.self = self;
    List<RingEntry> everyone = new ArrayList<>(entries);
    if (everyone.stream().noneMatch(e -> e.peerId().equals(self.peerId()))) {
      everyone.add(self);
    }
    Map<String, List<RingEntry>> byRack = new LinkedHashMap<>();
    for (RingEntry e : everyone) {
      byRack
          .computeIfAbsent(e.datacenter() + "\u0000" + e.rack(), k -> new ArrayList<>())
          .add(e);
    }
    Rack local = null;
    List<Rack> dc = new ArrayList<>();
    List<Rack> remote = new ArrayList<>();
    for (List<RingEntry> list : byRack.values()) {
      list.sort(Comparator.comparingLong(RingEntry::token));
      RingEntry first = list.get(0);
      Rack r = new Rack(first.datacenter(), first.rack(), list.toArray(new RingEntry[0]));
      if (first.datacenter().equals(self.datacenter()) && first.rack().equals(self.rack())) {
        local = r;
      } else if (first.datacenter().equals(self.datacenter())) {
        dc.add(r);
      } else {
        remote.add(r);
      }
    }
    dc.add(0, local);
    this.localRack = local;
    this.localDcRacks = List.copyOf(dc);
    this.remoteDcRacks = List.copyOf(remote);
    this.all = List.copyOf(everyone);
  }

  /** Whether some other datacenter has two or more racks (whose replies Dynomite compares). */
  boolean remoteDcHasRacksToCompare() {
    Map<String, Integer> racks = new LinkedHashMap<>();
    for (Rack r : remoteDcRacks) {
      racks.merge(r.datacenter(), 1, Integer::sum);
    }
    return racks.values().stream().anyMatch(n -> n >= 2);
  }

  boolean isSelf(RingEntry e) {
    return e == self || e.peerId().equals(self.peerId());
  }
}
