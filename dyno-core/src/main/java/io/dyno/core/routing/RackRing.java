package io.dyno.core.routing;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * One rack's ring: its nodes' tokens ascending, owners parallel. Filled with {@link #add}, then
 * {@link #seal()}ed once before any lookup.
 */
final class RackRing {
  final String datacenter;
  final String rack;
  private final List<HostToken> entries = new ArrayList<>();
  private long[] tokens;
  private Host[] owners;
  private List<Host> ownerList;

  RackRing(String datacenter, String rack) {
    this.datacenter = datacenter;
    this.rack = rack;
  }

  String name() {
    return datacenter + "/" + rack;
  }

  void add(HostToken hostToken) {
    entries.add(hostToken);
  }

  void seal() {
    entries.sort(Comparator.comparingLong(HostToken::token));
    tokens = entries.stream().mapToLong(HostToken::token).toArray();
    owners = entries.stream().map(HostToken::host).toArray(Host[]::new);
    ownerList = List.of(owners);
  }

  /** {@return the rack's nodes in token order, DOWN ones included} */
  List<Host> owners() {
    return ownerList;
  }

  /** The node owning {@code hash}: smallest token >= hash, or the smallest token when none is. */
  Host ownerOf(long hash) {
    int i = Arrays.binarySearch(tokens, hash);
    if (i < 0) {
      i = -i - 1;
      if (i == tokens.length) {
        i = 0;
      }
    }
    return owners[i];
  }
}
