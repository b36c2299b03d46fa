package io.dyno.core.routing;

import io.dyno.core.Host;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An immutable snapshot of the cluster: which nodes exist, which tokens they own, and for any key
 * the ordered list of nodes that may serve it. A refresher builds a new snapshot and swaps it in
 * atomically; readers never see a half-built one.
 */
public interface Topology {

  /** {@return the hasher (hash tag included) this cluster's keys are routed by} */
  KeyHasher hasher();

  /** {@return the rack this client runs in, or null when unknown} Traffic is then spread over racks. */
  String localRack();

  /** {@return the datacenter this client runs in, or null when unknown} */
  String localDatacenter();

  /** {@return every routable node} Unmodifiable; nodes reported DOWN are left out. */
  List<Host> hosts();

  /**
   * The owners of {@code hash}, one per rack: the local rack's owner first, then the other racks of
   * the local datacenter, then other datacenters. The order of the fallback racks varies by token
   * so that failover load is spread. Allocation-free: returns a precomputed list.
   *
   * @param hash the key's hash, an unsigned 32-bit value
   * @return the owners in preference order; unmodifiable, empty when no owner is up
   */
  List<Host> replicas(long hash);

  /**
   * The owners of {@code key}, as {@link #replicas(long)}.
   *
   * @param key the key, hashed as UTF-8 by {@link #hasher()}
   * @return the owners in preference order; unmodifiable, empty when no owner is up
   */
  default List<Host> replicas(String key) {
    return replicas(hasher().hash(key));
  }

  /**
   * The owners of {@code key}, as {@link #replicas(long)}.
   *
   * @param key the key, hashed by {@link #hasher()}
   * @return the owners in preference order; unmodifiable, empty when no owner is up
   */
  default List<Host> replicas(byte[] key) {
    return replicas(hasher().hash(key));
  }

  /**
   * {@return the ring's segments, each with its ordered owners} For cluster-wide scan and per-range
   * work; unmodifiable.
   */
  List<TokenRange> tokenRanges();

  /** {@return this snapshot's version} It increases with every snapshot swapped in. */
  long version();

  /**
   * The nodes in round-robin order for call number {@code sequence}: the local rack's nodes rotated
   * by {@code sequence}, then the local datacenter's other nodes, then the rest (each group rotated
   * too). Used for clients that cannot hash and for keyless requests. Implementations should return
   * precomputed lists; this default allocates.
   *
   * @param sequence the call's number (any value; consecutive values rotate the order)
   * @return every routable node, in this call's order; unmodifiable
   */
  default List<Host> roundRobin(long sequence) {
    List<Host> all = hosts();
    if (all.isEmpty()) {
      return all;
    }
    List<Host> local = new ArrayList<>();
    List<Host> sameDc = new ArrayList<>();
    List<Host> rest = new ArrayList<>();
    for (Host h : all) {
      boolean inDc = localDatacenter() != null && localDatacenter().equals(h.datacenter());
      if (inDc && localRack() != null && localRack().equals(h.rack())) {
        local.add(h);
      } else if (inDc) {
        sameDc.add(h);
      } else {
        rest.add(h);
      }
    }
    List<Host> out = new ArrayList<>(all.size());
    for (List<Host> group : List.of(local, sameDc, rest)) {
      int n = group.size();
      for (int i = 0; i < n; i++) {
        out.add(group.get((int) Math.floorMod(sequence + i, (long) n)));
      }
    }
    return Collections.unmodifiableList(out);
  }

  /**
   * One segment {@code (startExclusive, endInclusive]} of the ring (wrapping when start >= end).
   *
   * @param startExclusive the previous segment's end (unsigned 32-bit)
   * @param endInclusive this segment's end, a node's token (unsigned 32-bit)
   * @param replicas the segment's owners, one per rack, in preference order
   */
  record TokenRange(long startExclusive, long endInclusive, List<Host> replicas) {}
}
