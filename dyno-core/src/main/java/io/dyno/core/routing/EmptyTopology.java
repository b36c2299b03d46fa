package io.dyno.core.routing;

import io.dyno.core.Host;
import java.util.List;
import java.util.Objects;

/** The topology before the first successful refresh: no nodes, so every list is empty. */
final class EmptyTopology implements Topology {
  private final KeyHasher hasher;
  private final String rack;
  private final String dc;

  EmptyTopology(KeyHasher hasher, String rack, String dc) {
    this.hasher = Objects.requireNonNull(hasher, "hasher");
    this.rack = rack;
    this.dc = dc;
  }

  @Override
  public KeyHasher hasher() {
    return hasher;
  }

  @Override
  public String localRack() {
    return rack;
  }

  @Override
  public String localDatacenter() {
    return dc;
  }

  @Override
  public List<Host> hosts() {
    return List.of();
  }

  @Override
  public List<Host> replicas(long hash) {
    return List.of();
  }

  @Override
  public List<TokenRange> tokenRanges() {
    return List.of();
  }

  @Override
  public long version() {
    return 0;
  }

  @Override
  public List<Host> roundRobin(long sequence) {
    return List.of();
  }

  @Override
  public String toString() {
    return "Topology{empty}";
  }
}
