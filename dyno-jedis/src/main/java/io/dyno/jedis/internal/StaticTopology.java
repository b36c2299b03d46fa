package io.dyno.jedis.internal;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.routing.KeyHasher;
import io.dyno.core.routing.Topology;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A fixed topology built from a token map: per rack, the node with the smallest token {@code >=}
 * the hash owns it (wrapping to the smallest). Used by the client's built-in executor until
 * dyno-core's refreshing topology is wired in; kept deliberately small.
 */
public final class StaticTopology implements Topology {
  private final KeyHasher hasher;
  private final String localRack;
  private final String localDc;
  private final List<Host> hosts;
  private final long[] ends; // sorted union of all tokens: segment i is (ends[i-1], ends[i]]
  private final List<List<Host>> replicasBySegment;
  private final List<TokenRange> ranges;

  public StaticTopology(Collection<HostToken> tokens, KeyHasher hasher, String localRack, String localDc) {
    if (tokens.isEmpty()) {
      throw new IllegalArgumentException("topology: the token map is empty");
    }
    this.hasher = hasher;
    this.localRack = localRack;
    this.localDc = localDc;
    Map<String, TreeMap<Long, Host>> rings = new TreeMap<>(); // "dc/rack" -> token -> host
    TreeSet<Long> all = new TreeSet<>();
    List<Host> hs = new ArrayList<>();
    for (HostToken t : tokens) {
      rings.computeIfAbsent(t.host().datacenter() + "/" + t.host().rack(), k -> new TreeMap<>()).put(t.token(), t.host());
      all.add(t.token());
      hs.add(t.host());
    }
    this.hosts = List.copyOf(hs);
    this.ends = all.stream().mapToLong(Long::longValue).toArray();
    List<String> rackNames = new ArrayList<>(rings.keySet());
    List<List<Host>> bySeg = new ArrayList<>();
    List<TokenRange> rs = new ArrayList<>();
    for (int i = 0; i < ends.length; i++) {
      long end = ends[i];
      List<Host> local = new ArrayList<>();
      List<Host> sameDc = new ArrayList<>();
      List<Host> others = new ArrayList<>();
      // Rotate the fallback order by segment so one rack's failover load spreads over the others.
      for (int r = 0; r < rackNames.size(); r++) {
        String name = rackNames.get((r + i) % rackNames.size());
        TreeMap<Long, Host> ring = rings.get(name);
        Map.Entry<Long, Host> e = ring.ceilingEntry(end);
        Host owner = e != null ? e.getValue() : ring.firstEntry().getValue();
        if (localRack != null && owner.rack().equals(localRack) && (localDc == null || owner.datacenter().equals(localDc))) {
          local.add(owner);
        } else if (localDc == null || owner.datacenter().equals(localDc)) {
          sameDc.add(owner);
        } else {
          others.add(owner);
        }
      }
      List<Host> ordered = new ArrayList<>(local);
      ordered.addAll(sameDc);
      ordered.addAll(others);
      List<Host> frozen = List.copyOf(ordered);
      bySeg.add(frozen);
      long start = i == 0 ? ends[ends.length - 1] : ends[i - 1];
      rs.add(new TokenRange(start, end, frozen));
    }
    this.replicasBySegment = List.copyOf(bySeg);
    this.ranges = List.copyOf(rs);
  }

  @Override public KeyHasher hasher() { return hasher; }
  @Override public String localRack() { return localRack; }
  @Override public String localDatacenter() { return localDc; }
  @Override public List<Host> hosts() { return hosts; }
  @Override public List<TokenRange> tokenRanges() { return ranges; }
  @Override public long version() { return 1; }

  @Override
  public List<Host> replicas(long hash) {
    int i = Arrays.binarySearch(ends, hash);
    if (i < 0) {
      i = -i - 1; // first token > hash
    }
    if (i == ends.length) {
      i = 0; // above the largest token: wraps to the smallest
    }
    return replicasBySegment.get(i);
  }
}
