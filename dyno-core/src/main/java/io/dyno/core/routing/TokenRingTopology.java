package io.dyno.core.routing;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The immutable {@link Topology} snapshot: one token ring per rack, every answer precomputed.
 *
 * <h2>Algorithm</h2>
 * Every rack's tokens are merged into one sorted {@code long[]} of segment ends. A segment
 * {@code (previous end, end]} has exactly one owner per rack: the rack's node with the smallest
 * token {@code >= end}, wrapping to the rack's smallest token. For each segment and each of a few
 * <em>rotations</em> the ordered owner list is built once, at construction:
 * local rack first, then the other racks of the local datacenter, then the other datacenters.
 * {@link #replicas(long)} is a binary search plus an array read: no allocation.
 *
 * <p>The fallback racks are rotated by {@code (segment + hash) mod rotations}: the keys of one
 * failed node spread over all the other racks instead of all landing on one, even when each rack
 * has a single node. The order for a given key is stable for the life of the snapshot. When the
 * local rack is unknown, the first rack rotates the same way (an even spread, never all traffic to
 * one rack); {@link #warnings()} says so.
 *
 * <h2>Nodes reported DOWN</h2>
 * A node whose {@link Host#status()} is DOWN keeps its token on its rack's ring (its range does not
 * move to a neighbour, which would not hold the data) but is <em>left out</em> of
 * {@link #hosts()}, {@link #replicas(long)}, {@link #tokenRanges()} and {@link #roundRobin(long)}:
 * its keys are served by the other racks. A segment whose owners are all DOWN has an empty list.
 *
 * <h2>Validation</h2>
 * {@link Builder#build()} refuses, with a {@link TopologyException} listing the hosts involved: no
 * nodes; a token-map node the host source does not know; a node with two different tokens; two
 * nodes of one rack with the same token; a rack whose token set differs from the other racks of its
 * datacenter. Hosts of the host source that have no token are not routable and are named in
 * {@link #warnings()}.
 */
public final class TokenRingTopology implements Topology {
  /** Upper bound on precomputed rotations (memory: segments x rotations lists). */
  private static final int MAX_ROTATIONS = 120;

  private final KeyHasher hasher;
  private final String localRack;
  private final String localDatacenter;
  private final String configuredLocalRack;
  private final String configuredLocalDatacenter;
  private final long version;
  private final List<HostToken> hostTokens;
  private final List<Host> hosts;
  private final List<Host> downHosts;
  private final List<String> warnings;
  private final long[] segmentEnds;
  private final int rotations;
  private final List<Host>[] replicaLists;
  private final List<TokenRange> tokenRanges;
  private final List<Host>[] roundRobinLists;

  private TokenRingTopology(Builder b, Merged m) {
    this.hasher = b.hasher;
    this.version = b.version;
    this.configuredLocalRack = b.localRack;
    this.configuredLocalDatacenter = b.localDatacenter;
    this.hostTokens = m.hostTokens;
    List<String> warn = new ArrayList<>(m.warnings);

    // Racks grouped by datacenter, both sorted by name, each rack's ring sorted by token.
    TreeMap<String, TreeMap<String, Ring>> dcs = new TreeMap<>();
    for (HostToken ht : hostTokens) {
      dcs.computeIfAbsent(ht.host().datacenter(), k -> new TreeMap<>())
          .computeIfAbsent(ht.host().rack(), k -> new Ring(ht.host().datacenter(), k))
          .add(ht);
    }
    dcs.values().forEach(racks -> racks.values().forEach(Ring::seal));

    // Where this client is. Configuration may name a rack only: its datacenter is then inferred.
    String dc = b.localDatacenter;
    if (dc != null && !dcs.containsKey(dc)) {
      warn.add("local datacenter '" + dc + "' is not one of the cluster's datacenters "
          + dcs.keySet() + ": spreading requests evenly over racks");
      dc = null;
    }
    if (dc == null && b.localRack != null) {
      List<String> withRack = dcs.entrySet().stream()
          .filter(e -> e.getValue().containsKey(b.localRack))
          .map(Map.Entry::getKey)
          .collect(Collectors.toList());
      if (withRack.size() == 1) {
        dc = withRack.get(0);
      }
    }
    // Without rack affinity the local rack only places the client in its datacenter.
    Ring local = !b.rackAffinity || dc == null || b.localRack == null
        ? null
        : dcs.get(dc).get(b.localRack);
    if (local == null && b.rackAffinity) {
      String all = dcs.values().stream()
          .flatMap(r -> r.values().stream())
          .map(Ring::name)
          .collect(Collectors.joining(", ", "[", "]"));
      warn.add((b.localRack == null
              ? "local rack is not configured (nor LOCAL_RACK / EC2_AVAILABILITY_ZONE)"
              : "local rack '" + b.localRack + "'"
                  + (dc != null ? " in datacenter '" + dc + "'" : "")
                  + " is not one of the cluster's racks " + all)
          + ": spreading requests evenly over racks instead of preferring one");
    }
    this.localRack = local == null ? null : local.rack;
    this.localDatacenter = dc;
    this.warnings = List.copyOf(warn);

    // Groups for ordering: [local] + rotated(same-DC fallbacks) + rotated(remote DCs, each
    // rotated).
    List<Ring> sameDc = new ArrayList<>();
    if (dc != null) {
      for (Ring r : dcs.get(dc).values()) {
        if (r != local) sameDc.add(r);
      }
    }
    List<List<Ring>> remote = new ArrayList<>();
    for (Map.Entry<String, TreeMap<String, Ring>> e : dcs.entrySet()) {
      if (!e.getKey().equals(dc)) remote.add(new ArrayList<>(e.getValue().values()));
    }
    int remoteCycle = 1;
    for (List<Ring> racks : remote) remoteCycle = lcm(remoteCycle, racks.size());
    int rot = lcm(
        Math.max(1, sameDc.size()),
        remote.size() * remoteCycle == 0 ? 1 : remote.size() * remoteCycle);
    if (rot > MAX_ROTATIONS) {
      rot = Math.max(sameDc.size(), Math.max(remote.size(), remoteCycle));
    }
    this.rotations = Math.max(1, rot);

    TreeSet<Long> ends = new TreeSet<>();
    for (HostToken ht : hostTokens) ends.add(ht.token());
    this.segmentEnds = ends.stream().mapToLong(Long::longValue).toArray();

    Map<List<Host>, List<Host>> interned = new HashMap<>();
    @SuppressWarnings("unchecked")
    List<Host>[] lists = new List[segmentEnds.length * rotations];
    List<TokenRange> ranges = new ArrayList<>(segmentEnds.length);
    for (int s = 0; s < segmentEnds.length; s++) {
      long end = segmentEnds[s];
      for (int r = 0; r < rotations; r++) {
        List<Host> owners = new ArrayList<>();
        if (local != null) addUp(owners, local.ownerOf(end));
        for (int i = 0; i < sameDc.size(); i++) {
          addUp(owners, sameDc.get((r + i) % sameDc.size()).ownerOf(end));
        }
        int nDc = remote.size();
        for (int d = 0; d < nDc; d++) {
          List<Ring> racks = remote.get((r % nDc + d) % nDc);
          int shift = r / nDc;
          for (int i = 0; i < racks.size(); i++) {
            addUp(owners, racks.get((shift + i) % racks.size()).ownerOf(end));
          }
        }
        List<Host> frozen = List.copyOf(owners);
        lists[s * rotations + r] = interned.computeIfAbsent(frozen, k -> k);
      }
      long start = segmentEnds[(s + segmentEnds.length - 1) % segmentEnds.length];
      ranges.add(new TokenRange(start, end, lists[s * rotations + s % rotations]));
    }
    this.replicaLists = lists;
    this.tokenRanges = List.copyOf(ranges);

    // Hosts: UP ones in ring order (datacenter, rack, token); DOWN ones apart.
    List<Host> up = new ArrayList<>();
    List<Host> down = new ArrayList<>();
    for (TreeMap<String, Ring> racks : dcs.values()) {
      for (Ring r : racks.values()) {
        for (Host h : r.owners) (h.isUp() ? up : down).add(h);
      }
    }
    this.hosts = List.copyOf(up);
    this.downHosts = List.copyOf(down);
    this.roundRobinLists = roundRobinLists(local, sameDc, remote);
  }

  private static void addUp(List<Host> out, Host h) {
    if (h.isUp()) out.add(h);
  }

  private static List<Host>[] roundRobinLists(
      Ring local, List<Ring> sameDc, List<List<Ring>> remote) {
    List<List<Host>> groups = new ArrayList<>();
    groups.add(local == null ? List.of() : upOf(List.of(local)));
    groups.add(upOf(sameDc));
    groups.add(upOf(remote.stream().flatMap(List::stream).collect(Collectors.toList())));
    int n = 1;
    for (List<Host> g : groups) {
      if (!g.isEmpty()) {
        n = g.size(); // the first non-empty group sets the cycle
        break;
      }
    }
    @SuppressWarnings("unchecked")
    List<Host>[] out = new List[n];
    for (int i = 0; i < n; i++) {
      List<Host> order = new ArrayList<>();
      for (List<Host> g : groups) {
        for (int j = 0; j < g.size(); j++) order.add(g.get((i + j) % g.size()));
      }
      out[i] = List.copyOf(order);
    }
    return out;
  }

  private static List<Host> upOf(List<Ring> rings) {
    List<Host> out = new ArrayList<>();
    for (Ring r : rings) {
      for (Host h : r.owners) if (h.isUp()) out.add(h);
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

  /** {@return a new builder; tokens are required} */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A topology with no nodes (before the first successful refresh): every list is empty.
   *
   * @param hasher the cluster's hasher; not null
   * @param localRack the configured local rack, or null
   * @param localDatacenter the configured local datacenter, or null
   * @return an empty snapshot, version 0
   */
  public static Topology empty(KeyHasher hasher, String localRack, String localDatacenter) {
    return new Empty(hasher, localRack, localDatacenter);
  }

  /** {@return the hasher (hash tag included) this cluster's keys are routed by} */
  @Override
  public KeyHasher hasher() {
    return hasher;
  }

  /** The local rack if it is one of the cluster's racks, otherwise null (requests then spread evenly). */
  @Override
  /**
   * {@return the local rack if it is one of the cluster's racks, otherwise null} Requests then spread
   * evenly over the racks.
   */
  public String localRack() {
    return localRack;
  }

  /** The local datacenter (configured, or inferred from the local rack) if the cluster has it, otherwise null. */
  @Override
  /**
   * {@return the local datacenter if the cluster has it, otherwise null} Configured, or inferred from
   * the local rack.
   */
  public String localDatacenter() {
    return localDatacenter;
  }

  /**
   * {@return the rack this snapshot was asked to prefer, as configured} May be unknown to the cluster, or
   * null.
   */
  public String configuredLocalRack() {
    return configuredLocalRack;
  }

  /**
   * {@return the datacenter this snapshot was asked to prefer, as configured} May be unknown to the
   * cluster, or null.
   */
  public String configuredLocalDatacenter() {
    return configuredLocalDatacenter;
  }

  @Override
  public List<Host> hosts() {
    return hosts;
  }

  /**
   * {@return the nodes with a token that their host source reports DOWN} On the ring, never routed to;
   * unmodifiable.
   */
  public List<Host> downHosts() {
    return downHosts;
  }

  /**
   * {@return every node's token (DOWN nodes included), ordered by datacenter, rack, token}
   * Unmodifiable.
   */
  public List<HostToken> hostTokens() {
    return hostTokens;
  }

  /**
   * {@return what is worth one warning when this snapshot is taken into use} (an unknown local rack,
   * hosts without tokens); unmodifiable, empty when all is well.
   */
  public List<String> warnings() {
    return warnings;
  }

  @Override
  public List<Host> replicas(long hash) {
    long[] ends = segmentEnds;
    int i = Arrays.binarySearch(ends, hash);
    if (i < 0) {
      i = -i - 1;
      if (i == ends.length) {
        i = 0; // past the largest token: wraps to the smallest
      }
    }
    int r = rotations == 1 ? 0 : (int) ((i + (hash & 0xffffffffL)) % rotations);
    return replicaLists[i * rotations + r];
  }

  @Override
  public List<TokenRange> tokenRanges() {
    return tokenRanges;
  }

  @Override
  public List<Host> roundRobin(long sequence) {
    List<Host>[] lists = roundRobinLists;
    return lists[(int) Math.floorMod(sequence, (long) lists.length)];
  }

  @Override
  public long version() {
    return version;
  }

  /**
   * Whether {@code other} routes exactly like this one: same nodes with the same tokens, racks,
   * datacenters, status, ports and password, same local rack and hash tag. The version is ignored.
   *
   * @param other another snapshot
   * @return true when swapping {@code other} in would change no routing decision
   */
  public boolean sameLayout(Topology other) {
    if (!(other instanceof TokenRingTopology)) {
      return false;
    }
    TokenRingTopology o = (TokenRingTopology) other;
    if (!Objects.equals(localRack, o.localRack)
        || !Objects.equals(localDatacenter, o.localDatacenter)
        || !Objects.equals(configuredLocalRack, o.configuredLocalRack)
        || !hasher.hashtag().equals(o.hasher.hashtag())
        || hostTokens.size() != o.hostTokens.size()) {
      return false;
    }
    for (int i = 0; i < hostTokens.size(); i++) {
      HostToken a = hostTokens.get(i);
      HostToken b = o.hostTokens.get(i);
      if (a.token() != b.token() || !sameHost(a.host(), b.host())) {
        return false;
      }
    }
    return true;
  }

  static boolean sameHost(Host a, Host b) {
    return a.equals(b)
        && a.hostname().equals(b.hostname())
        && Objects.equals(a.ipAddress(), b.ipAddress())
        && a.rack().equals(b.rack())
        && a.datacenter().equals(b.datacenter())
        && a.status() == b.status()
        && a.securePort() == b.securePort()
        && a.datastorePort() == b.datastorePort()
        && Objects.equals(a.password(), b.password());
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("TokenRingTopology{v")
        .append(version)
        .append(", local=")
        .append(localDatacenter)
        .append('/')
        .append(localRack)
        .append(", hashtag=")
        .append(hasher.hashtag().isEmpty() ? "none" : hasher.hashtag())
        .append(", nodes=[");
    for (int i = 0; i < hostTokens.size(); i++) {
      HostToken ht = hostTokens.get(i);
      if (i > 0) sb.append(", ");
      sb.append(ht.host()).append('@').append(ht.token());
    }
    return sb.append("]}").toString();
  }

  /** One rack's ring: tokens ascending, owners parallel. */
  private static final class Ring {
    final String dc;
    final String rack;
    final List<HostToken> entries = new ArrayList<>();
    long[] tokens;
    Host[] owners;

    Ring(String dc, String rack) {
      this.dc = dc;
      this.rack = rack;
    }

    String name() {
      return dc + "/" + rack;
    }

    void add(HostToken ht) {
      entries.add(ht);
    }

    void seal() {
      entries.sort(Comparator.comparingLong(HostToken::token));
      tokens = entries.stream().mapToLong(HostToken::token).toArray();
      owners = entries.stream().map(HostToken::host).toArray(Host[]::new);
    }

    /** The node owning {@code hash}: smallest token >= hash, or the smallest token when none is. */
    Host ownerOf(long hash) {
      int i = Arrays.binarySearch(tokens, hash);
      if (i < 0) {
        i = -i - 1;
        if (i == tokens.length) i = 0;
      }
      return owners[i];
    }
  }

  /** Builds and validates a snapshot. */
  public static final class Builder {
    private Collection<Host> hosts;
    private Collection<HostToken> tokens = List.of();
    private String localRack;
    private String localDatacenter;
    private KeyHasher hasher = KeyHasher.noHashtag();
    private long version = 1;
    private boolean rackAffinity = true;

    private Builder() {}

    /**
     * Whether the local rack is tried first (default). False: requests spread evenly over the racks
     * of the local datacenter (other datacenters still come after them).
     *
     * @param preferLocalRack false to spread requests over the local datacenter's racks
     * @return this builder
     */
    public Builder rackAffinity(boolean preferLocalRack) {
      this.rackAffinity = preferLocalRack;
      return this;
    }

    /**
     * The nodes the host source reports (with their status). Each token-map node is matched to one
     * of these by {@code address:port} (or hostname/IP with the same port); the host source's view
     * (status, rack, password, …) is what gets routed to. If never set, the token map's own hosts are used.
     *
     * @param hosts the host source's nodes; copied
     * @return this builder
     */
    public Builder hosts(Collection<Host> hosts) {
      this.hosts = List.copyOf(hosts);
      return this;
    }

    /**
     * Sets the token map: each node's token. Required.
     *
     * @param tokens one entry per node; copied
     * @return this builder
     */
    public Builder tokens(Collection<HostToken> tokens) {
      this.tokens = List.copyOf(tokens);
      return this;
    }

    /**
     * Sets the rack to prefer. A rack the cluster does not have is kept as configured and warned about.
     *
     * @param rack the rack, or null or blank for unknown
     * @return this builder
     */
    public Builder localRack(String rack) {
      this.localRack = rack == null || rack.isBlank() ? null : rack;
      return this;
    }

    /**
     * Sets the local datacenter. Default: the local rack's datacenter.
     *
     * @param dc the datacenter, or null or blank for unknown
     * @return this builder
     */
    public Builder localDatacenter(String dc) {
      this.localDatacenter = dc == null || dc.isBlank() ? null : dc;
      return this;
    }

    /**
     * Sets the hasher (hash tag included). Default: no hash tag.
     *
     * @param hasher the hasher; not null
     * @return this builder
     */
    public Builder hasher(KeyHasher hasher) {
      this.hasher = Objects.requireNonNull(hasher, "hasher");
      return this;
    }

    /**
     * Sets the snapshot's version (default 1); a refresher gives each new snapshot a higher one.
     *
     * @param version the version
     * @return this builder
     */
    public Builder version(long version) {
      this.version = version;
      return this;
    }

    /**
     * Validates and builds.
     *
     * @return the snapshot
     * @throws TopologyException naming the hosts at fault, when the token map cannot be served (a
     *     token-map node the host source does not know, two tokens for one node, …)
     */
    public TokenRingTopology build() {
      return new TokenRingTopology(this, merge());
    }

    private Merged merge() {
      Collection<Host> source = hosts;
      if (source == null) {
        LinkedHashMap<Host, Host> fromTokens = new LinkedHashMap<>();
        for (HostToken ht : tokens) fromTokens.putIfAbsent(ht.host(), ht.host());
        source = fromTokens.keySet();
      }
      Map<String, Host> byKey = new HashMap<>();
      for (Host h : source) {
        for (String k : keys(h)) byKey.putIfAbsent(k, h);
      }
      Map<Host, HostToken> merged = new LinkedHashMap<>();
      List<String> unknown = new ArrayList<>();
      List<String> twoTokens = new ArrayList<>();
      for (HostToken ht : tokens) {
        Host match = null;
        for (String k : keys(ht.host())) {
          match = byKey.get(k);
          if (match != null) break;
        }
        if (match == null) {
          unknown.add(ht.host() + "@" + ht.token());
          continue;
        }
        HostToken prior = merged.putIfAbsent(match, new HostToken(ht.token(), match));
        if (prior != null && prior.token() != ht.token()) {
          twoTokens.add(match + " has tokens " + prior.token() + " and " + ht.token());
        }
      }
      if (!unknown.isEmpty()) {
        throw new TopologyException(
            "token map lists " + unknown.size() + " node(s) the host source does not know: "
                + unknown + "; the host source knows " + source);
      }
      if (!twoTokens.isEmpty()) {
        throw new TopologyException(
            "a node may own only one token, but " + String.join("; ", twoTokens));
      }
      if (merged.isEmpty()) {
        throw new TopologyException("no nodes to route to: the host source gave " + source
            + " and the token map gave " + tokens);
      }
      List<HostToken> sorted = new ArrayList<>(merged.values());
      sorted.sort(Comparator.comparing((HostToken ht) -> ht.host().datacenter())
          .thenComparing(ht -> ht.host().rack())
          .thenComparingLong(HostToken::token));
      validateRacks(sorted);
      List<String> warnings = new ArrayList<>();
      List<Host> untokened =
          source.stream().filter(h -> !merged.containsKey(h)).collect(Collectors.toList());
      if (!untokened.isEmpty()) {
        warnings.add("hosts without a token are not routable: " + untokened);
      }
      return new Merged(List.copyOf(sorted), warnings);
    }

    private static List<String> keys(Host h) {
      List<String> k = new ArrayList<>(3);
      k.add(h.address() + ":" + h.port());
      k.add(h.hostname() + ":" + h.port());
      if (h.ipAddress() != null) k.add(h.ipAddress() + ":" + h.port());
      return k;
    }

    /** Same token twice in a rack, or racks of one datacenter with different token sets: refused. */
    private static void validateRacks(List<HostToken> sorted) {
      Map<String, Map<String, List<HostToken>>> dcs = new TreeMap<>();
      for (HostToken ht : sorted) {
        dcs.computeIfAbsent(ht.host().datacenter(), k -> new TreeMap<>())
            .computeIfAbsent(ht.host().rack(), k -> new ArrayList<>())
            .add(ht);
      }
      List<String> problems = new ArrayList<>();
      for (Map.Entry<String, Map<String, List<HostToken>>> dc : dcs.entrySet()) {
        for (Map.Entry<String, List<HostToken>> rack : dc.getValue().entrySet()) {
          List<HostToken> ring = rack.getValue();
          for (int i = 1; i < ring.size(); i++) {
            if (ring.get(i).token() == ring.get(i - 1).token()) {
              problems.add("rack " + dc.getKey() + "/" + rack.getKey() + ": "
                  + ring.get(i - 1).host() + " and " + ring.get(i).host() + " have the same token "
                  + ring.get(i).token());
            }
          }
        }
        Map<String, List<Long>> tokenSets = new TreeMap<>();
        dc.getValue()
            .forEach((rack, ring) -> tokenSets.put(
                rack, ring.stream().map(HostToken::token).distinct().collect(Collectors.toList())));
        if (tokenSets.values().stream().distinct().count() > 1) {
          StringBuilder sb = new StringBuilder("racks of datacenter " + dc.getKey()
              + " must hold the same tokens (each rack is a full copy), but:");
          dc.getValue()
              .forEach((rack, ring) -> sb.append(" rack ")
                  .append(rack)
                  .append(" has ")
                  .append(ring.stream()
                      .map(ht -> ht.host().id() + "@" + ht.token())
                      .collect(Collectors.toList()))
                  .append(';'));
          problems.add(sb.substring(0, sb.length() - 1));
        }
      }
      if (!problems.isEmpty()) {
        throw new TopologyException("topology refused: " + String.join("; ", problems));
      }
    }
  }

  private static final class Merged {
    final List<HostToken> hostTokens;
    final List<String> warnings;

    Merged(List<HostToken> hostTokens, List<String> warnings) {
      this.hostTokens = hostTokens;
      this.warnings = warnings;
    }
  }

  /** No nodes yet. */
  private static final class Empty implements Topology {
    private final KeyHasher hasher;
    private final String rack;
    private final String dc;

    Empty(KeyHasher hasher, String rack, String dc) {
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
}
