package io.dyno.core.exec;

import io.dyno.core.Host;
import io.dyno.core.routing.KeyHasher;
import io.dyno.core.routing.Topology;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** A tiny test-only topology: per rack a token ring; replicas = the local rack's owner, then the other racks in order. */
public final class TestTopology implements Topology {
  private final String localRack;
  private final Map<String, TreeMap<Long, Host>> racks;
  private final long version;

  private TestTopology(String localRack, Map<String, TreeMap<Long, Host>> racks, long version) {
    this.localRack = localRack;
    this.racks = racks;
    this.version = version;
  }

  public static Builder builder(String localRack) {
    return new Builder(localRack);
  }

  public static Host host(String rack, int port) {
    return Host.builder("127.0.0.1", port).rack(rack).datacenter("dc1").build();
  }

  public static Host host(String rack, int port, int datastorePort) {
    return Host.builder("127.0.0.1", port)
        .rack(rack)
        .datacenter("dc1")
        .datastorePort(datastorePort)
        .build();
  }

  @Override
  public KeyHasher hasher() {
    return KeyHasher.noHashtag();
  }

  @Override
  public String localRack() {
    return localRack;
  }

  @Override
  public String localDatacenter() {
    return "dc1";
  }

  @Override
  public List<Host> hosts() {
    List<Host> all = new ArrayList<>();
    racks.values().forEach(r -> all.addAll(r.values()));
    return all;
  }

  @Override
  public List<Host> replicas(long hash) {
    List<Host> out = new ArrayList<>();
    TreeMap<Long, Host> local = racks.get(localRack);
    if (local != null) {
      out.add(owner(local, hash));
    }
    racks.forEach((rack, ring) -> {
      if (!rack.equals(localRack)) {
        out.add(owner(ring, hash));
      }
    });
    return out;
  }

  private static Host owner(TreeMap<Long, Host> ring, long hash) {
    Map.Entry<Long, Host> e = ring.ceilingEntry(hash);
    return (e != null ? e : ring.firstEntry()).getValue();
  }

  @Override
  public List<TokenRange> tokenRanges() {
    List<TokenRange> out = new ArrayList<>();
    TreeMap<Long, Host> first = racks.values().iterator().next();
    long prev = first.lastKey();
    for (long t : first.keySet()) {
      out.add(new TokenRange(prev, t, replicas(t)));
      prev = t;
    }
    return out;
  }

  @Override
  public long version() {
    return version;
  }

  public static final class Builder {
    private final String localRack;
    private final Map<String, TreeMap<Long, Host>> racks = new LinkedHashMap<>();
    private long version = 1;

    private Builder(String localRack) {
      this.localRack = localRack;
    }

    public Builder node(Host h, long token) {
      racks.computeIfAbsent(h.rack(), r -> new TreeMap<>()).put(token, h);
      return this;
    }

    public Builder version(long v) {
      this.version = v;
      return this;
    }

    public TestTopology build() {
      return new TestTopology(localRack, racks, version);
    }
  }
}
