package io.dyno.companion;

import io.dyno.companion.internal.KeyHash;
import io.dyno.companion.internal.NodeConfig;
import io.dyno.companion.internal.NodeServer;
import io.dyno.companion.internal.RingEntry;
import io.dyno.companion.internal.Threads;
import io.dyno.core.Host;
import io.dyno.core.HostSupplier;
import io.dyno.core.HostToken;
import io.dyno.core.TokenMapSupplier;
import io.dyno.core.topology.NodeStateSource;
import io.dyno.testsupport.RedisServer;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An N-rack Dynomite-like cluster of {@link CompanionNode}s on free loopback ports (each node's peer
 * port its client port - 1, Dynomite's convention, so its {@code /cluster_describe} serves a client
 * as a real one does), for tests and demos. Every rack holds a full copy of the data, split over
 * its nodes by token (the same tokens in every rack), exactly like Dynomite.
 *
 * <pre>{@code
 * try (CompanionCluster c = CompanionCluster.builder().racks(3).nodesPerRack(2).start()) {
 *   List<Host> hosts = c.hosts();
 *   c.ownerOf("rack1", "key").stop();
 * }
 * }</pre>
 *
 * <p>With {@link Builder#datacenters(String...)} it is several datacenters of that shape, each a
 * full replica, described by one {@code cluster_describe}: a write reaches every rack of every
 * datacenter, the other datacenters after {@link Builder#interDatacenterDelay(Duration)}.
 */
public final class CompanionCluster implements AutoCloseable {
  private final String datacenter;
  private final List<String> datacenters;
  private final Backend backend;
  private final String hashtag;
  private final KeyHash hasher;
  private final List<CompanionNode> nodes;
  private final List<RedisServer> redisProcesses;
  private final EventLoopGroup group;
  private final AtomicBoolean closed = new AtomicBoolean();

  private CompanionCluster(Builder b) {
    this.datacenters = b.datacenters != null ? b.datacenters : List.of(b.datacenter);
    this.datacenter = datacenters.get(0);
    this.backend = b.backend;
    this.hashtag = b.hashtag;
    this.hasher = KeyHash.forHashtag(b.hashtag);
    this.group = Threads.newEventLoopGroup(b.ioThreads, "companion-io");
    List<CompanionNode> list = new ArrayList<>();
    List<RedisServer> procs = new ArrayList<>();
    try {
      List<NodeServer> servers = new ArrayList<>();
      int nodeIndex = 0;
      for (String dc : datacenters) {
        for (int r = 1; r <= b.racks; r++) {
          for (int i = 0; i < b.nodesPerRack; i++, nodeIndex++) {
            boolean fixed = b.basePort > 0;
            int client = fixed ? PortLayout.client(b.basePort, nodeIndex) : 0;
            int peer = fixed ? PortLayout.peer(b.basePort, nodeIndex) : 0;
            int admin = fixed ? PortLayout.admin(b.basePort, nodeIndex) : 0;
            int redisPort = -1;
            if (backend == Backend.REDIS) {
              RedisServer p = RedisServer.builder().executable(b.redisServer).start();
              procs.add(p);
              redisPort = p.port();
            }
            NodeConfig cfg = new NodeConfig(
                dc,
                "rack" + r,
                tokenFor(i, b.nodesPerRack),
                "127.0.0.1",
                client,
                peer,
                admin,
                backend,
                redisPort,
                hashtag,
                b.peerTimeout);
            NodeServer s = new NodeServer(cfg, group);
            s.remoteDatacenterDelay(b.interDatacenterDelay);
            s.bindAll();
            servers.add(s);
          }
        }
      }
      List<RingEntry> ring = new ArrayList<>();
      for (NodeServer s : servers) {
        ring.add(s.selfEntry());
      }
      for (NodeServer s : servers) {
        s.setRing(ring);
        list.add(new CompanionNode(s));
      }
    } catch (RuntimeException e) {
      list.forEach(n -> n.server().close());
      procs.forEach(RedisServer::close);
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
    this.nodes = List.copyOf(list);
    this.redisProcesses = List.copyOf(procs);
  }

  /** Token of node {@code index} of {@code n} in a rack: evenly spaced, first one 0 (2 nodes: 0, 2147483647). */
  static long tokenFor(int index, int n) {
    return index * (0xffffffffL / n);
  }

  /**
   * A {@link Builder#basePort} whose ports for {@code nodes} nodes (client, peer one below, admin
   * 1000 above, 10 apart per node) are all free on 127.0.0.1 now, for tests that need the fixed
   * layout. Free now is not reserved: a test that races other processes for ports should expect a
   * rare bind failure.
   */
  public static int freeBasePort(int nodes) {
    return PortLayout.freeBase(nodes);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The (first) datacenter: the one {@link #racks()}, {@link #nodes(String)} and {@link #ownerOf(String, String)} mean. */
  public String datacenter() {
    return datacenter;
  }

  /** Every datacenter, in order (one unless {@link Builder#datacenters(String...)} named more). */
  public List<String> datacenters() {
    return datacenters;
  }

  public Backend backend() {
    return backend;
  }
  /** The configured hash tag, or the empty string. */
  public String hashtag() {
    return hashtag == null ? "" : hashtag;
  }

  /** All nodes, datacenter by datacenter, rack by rack, each rack in token order. */
  public List<CompanionNode> nodes() {
    return nodes;
  }

  /** Rack names, in order: rack1..rackN (the same in every datacenter). */
  public List<String> racks() {
    return nodes.stream().map(CompanionNode::rack).distinct().toList();
  }

  /** The nodes of one rack of the (first) datacenter in token order. */
  public List<CompanionNode> nodes(String rack) {
    return nodes(datacenter, rack);
  }

  /** The nodes of one rack of a datacenter in token order. */
  public List<CompanionNode> nodes(String dc, String rack) {
    List<CompanionNode> inRack = nodes.stream()
        .filter(n -> n.datacenter().equals(dc) && n.rack().equals(rack))
        .toList();
    if (inRack.isEmpty()) {
      throw new IllegalArgumentException("no rack \"" + rack + "\" in datacenter \"" + dc
          + "\"; datacenters are " + datacenters + ", racks " + racks());
    }
    return inRack;
  }

  /** Every node of one datacenter. */
  public List<CompanionNode> datacenterNodes(String dc) {
    List<CompanionNode> in =
        nodes.stream().filter(n -> n.datacenter().equals(dc)).toList();
    if (in.isEmpty()) {
      throw new IllegalArgumentException(
          "no datacenter \"" + dc + "\"; datacenters are " + datacenters);
    }
    return in;
  }

  /** Node number {@code index} (0-based, token order) of {@code rack}. */
  public CompanionNode node(String rack, int index) {
    List<CompanionNode> inRack = nodes(rack);
    if (index < 0 || index >= inRack.size()) {
      throw new IllegalArgumentException(
          "rack " + rack + " has nodes 0.." + (inRack.size() - 1) + ", not " + index);
    }
    return inRack.get(index);
  }

  /** The node of {@code rack} (first datacenter) that owns {@code key} (hash tag applied). */
  public CompanionNode ownerOf(String rack, String key) {
    return ownerOf(datacenter, rack, key);
  }

  /** The node of {@code rack} in datacenter {@code dc} that owns {@code key} (hash tag applied). */
  public CompanionNode ownerOf(String dc, String rack, String key) {
    Objects.requireNonNull(key, "key");
    long hash = hasher.hash(key);
    List<CompanionNode> inRack = nodes(dc, rack);
    for (CompanionNode n : inRack) { // token order: the first token >= hash owns it
      if (n.token() >= hash) {
        return n;
      }
    }
    return inRack.get(0);
  }

  /** The nodes as Dyno hosts (client ports; datastore port when the backend is Redis), all UP. */
  public List<Host> hosts() {
    return nodes.stream().map(n -> n.host()).toList();
  }

  /**
   * Restarts {@code node}'s redis-server empty on the same port, as a replaced instance comes back
   * (stop the node first, as its process would be; start it after).
   *
   * @throws IllegalStateException when the cluster has no Redis backends
   * @throws IllegalArgumentException when the node is not one of this cluster's
   */
  public void restartRedis(CompanionNode node) {
    if (redisProcesses.isEmpty()) {
      throw new IllegalStateException("restartRedis needs a cluster with Redis backends");
    }
    int i = nodes.indexOf(node);
    if (i < 0) {
      throw new IllegalArgumentException(node + " is not a node of this companion cluster");
    }
    redisProcesses.get(i).restart();
  }

  /**
   * Where a client reads each node's Dynomite state: every node's own admin port (they differ here,
   * where real Dynomite nodes share 22222), for {@code DynoJedisClientBuilder.nodeStates(...)}.
   */
  public NodeStateSource nodeStates() {
    return NodeStateSource.dynomiteAdmin(this::adminPortOf, Duration.ofMillis(500));
  }

  private int adminPortOf(Host h) {
    for (CompanionNode n : nodes) {
      if (n.clientPort() == h.port() && n.host().address().equals(h.address())) {
        return n.adminPort();
      }
    }
    throw new IllegalArgumentException(h + " is not a node of this companion cluster");
  }

  /** The token map of every node. */
  public List<HostToken> hostTokens() {
    return nodes.stream().map(n -> new HostToken(n.token(), n.host())).toList();
  }

  /** A host supplier reporting live status: a stopped node is DOWN. */
  public HostSupplier hostSupplier() {
    return () -> nodes.stream()
        .map(n -> n.host().withStatus(n.isRunning() ? Host.Status.UP : Host.Status.DOWN))
        .toList();
  }

  /** A token map supplier answering with this cluster's (static) tokens. */
  public TokenMapSupplier tokenMapSupplier() {
    return hostsAsked -> hostTokens();
  }

  /** Clears every fault on every node, restarts stopped nodes and resets consistency to DC_ONE. */
  public void clearFaults() {
    for (CompanionNode n : nodes) {
      n.clearFaults();
      if (!n.isRunning()) {
        n.start();
      }
      n.server().resetAdminState();
    }
  }

  /** Deletes every key on every node (the backend directly: this is not a Dynomite command). */
  public void flushAll() {
    for (CompanionNode n : nodes) {
      n.server().flushBackend();
    }
  }

  /** Stops every node and Redis process. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    for (CompanionNode n : nodes) {
      n.server().close();
    }
    for (RedisServer p : redisProcesses) {
      p.close();
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5_000);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("CompanionCluster{" + datacenters + ", backend=" + backend
        + (hashtag != null ? ", hashtag=" + hashtag : "") + "}\n");
    for (CompanionNode n : nodes) {
      sb.append("  ").append(n).append('\n');
    }
    return sb.toString();
  }

  /** Builds and starts a {@link CompanionCluster}. */
  public static final class Builder {
    private String datacenter = "dc1";
    private List<String> datacenters;
    private Duration interDatacenterDelay = Duration.ZERO;
    private int racks = 3;
    private int nodesPerRack = 2;
    private Backend backend = Backend.MEMORY;
    private String hashtag;
    private Duration peerTimeout = Duration.ofSeconds(5);
    private int ioThreads = Math.min(2, Runtime.getRuntime().availableProcessors());
    private String redisServer = "redis-server";
    private int basePort;

    private Builder() {}

    public Builder datacenter(String dc) {
      if (dc == null || dc.isBlank()) {
        throw new IllegalArgumentException("datacenter must not be empty");
      }
      this.datacenter = dc;
      this.datacenters = null;
      return this;
    }

    /**
     * Several datacenters, each of {@link #racks(int)} racks of {@link #nodesPerRack(int)} nodes
     * (same tokens), listed in every node's ring: Dynomite's multi-region layout.
     */
    public Builder datacenters(String... names) {
      if (names == null || names.length == 0) {
        throw new IllegalArgumentException("datacenters: name at least one");
      }
      List<String> list = List.of(names);
      for (String dc : list) {
        if (dc.isBlank()) {
          throw new IllegalArgumentException("datacenters: empty name in " + list);
        }
      }
      if (list.stream().distinct().count() != list.size()) {
        throw new IllegalArgumentException("datacenters: a name is repeated in " + list);
      }
      this.datacenters = list;
      this.datacenter = list.get(0);
      return this;
    }

    /**
     * How long a write takes to reach another datacenter, one way (default 0): replication to
     * another datacenter's racks is sent that much later, as over a link between regions.
     */
    public Builder interDatacenterDelay(Duration d) {
      if (d == null || d.isNegative()) {
        throw new IllegalArgumentException("interDatacenterDelay must be 0 or more, was " + d);
      }
      this.interDatacenterDelay = d;
      return this;
    }

    public Builder racks(int n) {
      if (n < 1 || n > 16) {
        throw new IllegalArgumentException("racks must be 1..16, was " + n);
      }
      this.racks = n;
      return this;
    }

    public Builder nodesPerRack(int n) {
      if (n < 1 || n > 32) {
        throw new IllegalArgumentException("nodesPerRack must be 1..32, was " + n);
      }
      this.nodesPerRack = n;
      return this;
    }

    public Builder backend(Backend b) {
      this.backend = Objects.requireNonNull(b, "backend");
      return this;
    }

    /** Two characters such as {@code "{}"}; null or empty for none. */
    public Builder hashtag(String tag) {
      KeyHash.forHashtag(tag); // validates
      this.hashtag = tag == null || tag.isEmpty() ? null : tag;
      return this;
    }

    /** How long a node waits for a peer's reply before answering a peer error (default 5 s). */
    public Builder peerTimeout(Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("peerTimeout must be positive, was " + d);
      }
      this.peerTimeout = d;
      return this;
    }

    /** Netty I/O threads shared by all nodes (default min(2, cores)). */
    public Builder ioThreads(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("ioThreads must be >= 1, was " + n);
      }
      this.ioThreads = n;
      return this;
    }

    /** The redis-server executable for {@link Backend#REDIS} (default: {@code redis-server} from PATH). */
    public Builder redisServer(String executable) {
      this.redisServer = Objects.requireNonNull(executable, "redisServer");
      return this;
    }

    /**
     * Fixed ports instead of free ones: node i (rack by rack) gets client {@code base + 10i}, peer
     * {@code base + 10i - 1}, admin {@code base + 10i + 1000} (8102/8101/9102, 8112/8111/9112, ...).
     */
    public Builder basePort(int base) {
      if (base < 2 || base > 60000) {
        throw new IllegalArgumentException("basePort must be 2..60000, was " + base);
      }
      this.basePort = base;
      return this;
    }

    public CompanionCluster start() {
      return new CompanionCluster(this);
    }
  }
}
