package io.dyno.core.routing;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

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

  private TokenRingTopology(Builder b) {
    TokenMapMerge.Result merged = TokenMapMerge.merge(b.hosts, b.tokens);
    RackGroups groups =
        new RackGroups(merged.hostTokens(), b.localRack, b.localDatacenter, b.rackAffinity);
    ReplicaLayout layout = new ReplicaLayout(merged.hostTokens(), groups);
    this.hasher = b.hasher;
    this.version = b.version;
    this.configuredLocalRack = b.localRack;
    this.configuredLocalDatacenter = b.localDatacenter;
    this.hostTokens = merged.hostTokens();
    this.localRack = groups.local == null ? null : groups.local.rack;
    this.localDatacenter = groups.localDatacenter;
    List<String> warn = new ArrayList<>(merged.warnings());
    warn.addAll(groups.warnings);
    this.warnings = List.copyOf(warn);
    this.hosts = layout.upHosts;
    this.downHosts = layout.downHosts;
    this.segmentEnds = layout.segmentEnds;
    this.rotations = layout.rotations;
    this.replicaLists = layout.replicaLists;
    this.tokenRanges = layout.tokenRanges;
    this.roundRobinLists = layout.roundRobinLists;
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
    return new EmptyTopology(hasher, localRack, localDatacenter);
  }

  /** {@return the hasher (hash tag included) this cluster's keys are routed by} */
  @Override
  public KeyHasher hasher() {
    return hasher;
  }

  /**
   * {@return the local rack if it is one of the cluster's racks, otherwise null} Requests then spread
   * evenly over the racks.
   */
  @Override
  public String localRack() {
    return localRack;
  }

  /**
   * {@return the local datacenter if the cluster has it, otherwise null} Configured, or inferred from
   * the local rack.
   */
  @Override
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
      return new TokenRingTopology(this);
    }
  }
}
