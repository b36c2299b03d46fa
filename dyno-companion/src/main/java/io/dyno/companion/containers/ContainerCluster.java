package io.dyno.companion.containers;

import io.dyno.companion.Backend;
import io.dyno.companion.containers.NodeContainers.Spec;
import io.dyno.companion.dynomite.ReplicationProbe;
import io.dyno.core.Host;
import io.dyno.core.HostSupplier;
import io.dyno.core.HostToken;
import io.dyno.core.TokenMapSupplier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionException;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.lifecycle.Startables;

/**
 * A Dynomite-style cluster where every node, and every node's redis-server, runs in its own
 * container, so tests can freeze and kill real processes.
 *
 * <pre>{@code
 * try (ContainerCluster cluster = ContainerCluster.builder().racks(3).start()) {
 *   ContainerNode n = cluster.node("rack1", 0);
 *   n.pause(); ... n.unpause(); n.kill(); n.restart();
 * }
 * }</pre>
 *
 * <p>Containers use host networking only and bind 127.0.0.1 on free ports chosen here; images
 * are never pulled (see {@link ContainerImages} for the images and the properties that change
 * them). With {@link Server#DYNOMITE} the nodes run a real Dynomite image, each with a generated
 * {@code dynomite.yml}. Call {@link ContainerAssumptions} from tests to skip cleanly when Docker
 * or an image is missing.
 */
public final class ContainerCluster implements AutoCloseable {
  /** What runs as each node. */
  public enum Server {
    /** This project's companion server ({@link ContainerImages#companion()}). */
    COMPANION,
    /** Real Dynomite ({@link ContainerImages#dynomite()}, which must be set). */
    DYNOMITE
  }

  private final String datacenter;
  private final String hashtag;
  private final List<ContainerNode> nodes;
  private final Thread shutdownHook;
  private volatile boolean closed;

  private ContainerCluster(String datacenter, String hashtag, List<ContainerNode> nodes) {
    this.datacenter = datacenter;
    this.hashtag = hashtag;
    this.nodes = List.copyOf(nodes);
    // No Ryuk here (it would be pulled), so remove our containers if the JVM exits without close().
    this.shutdownHook = new Thread(this::stopAll, "dyno-container-cluster-cleanup");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  public static Builder builder() {
    return new Builder();
  }

  public String datacenter() {
    return datacenter;
  }

  /** The hashtag the nodes were configured with, or null. */
  public String hashtag() {
    return hashtag;
  }

  /** All nodes, rack by rack, in token order within a rack. */
  public List<ContainerNode> nodes() {
    return nodes;
  }

  /** The node at {@code index} (by token order) in {@code rack}. */
  public ContainerNode node(String rack, int index) {
    return nodes.stream()
        .filter(n -> n.rack().equals(rack) && n.indexInRack() == index)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException(
            "no node " + index + " in rack '" + rack + "'; racks: " + racks()));
  }

  /** The rack names, in order. */
  public List<String> racks() {
    return nodes.stream().map(ContainerNode::rack).distinct().toList();
  }

  /** The nodes of one rack. */
  public List<ContainerNode> rack(String rack) {
    List<ContainerNode> r = nodes.stream().filter(n -> n.rack().equals(rack)).toList();
    if (r.isEmpty()) {
      throw new IllegalArgumentException("no rack '" + rack + "'; racks: " + racks());
    }
    return r;
  }

  /** Every node as a {@link Host} (status UP). */
  public List<Host> hosts() {
    return nodes.stream().map(ContainerNode::host).toList();
  }

  /** The token map: every node with its token. */
  public List<HostToken> hostTokens() {
    return nodes.stream().map(n -> new HostToken(n.token(), n.host())).toList();
  }

  /** The nodes with live status: a node whose server process is not running is DOWN. */
  public HostSupplier hostSupplier() {
    return () -> nodes.stream()
        .map(n -> n.isRunning() ? n.host() : n.host().withStatus(Host.Status.DOWN))
        .toList();
  }

  /** The tokens of the asked-for hosts (by address and port), from the static token map. */
  public TokenMapSupplier tokenMapSupplier() {
    return (Collection<Host> asked) -> {
      Set<String> ids = new HashSet<>();
      asked.forEach(h -> ids.add(h.id()));
      return hostTokens().stream().filter(t -> ids.contains(t.host().id())).toList();
    };
  }

  /**
   * Returns once the cluster replicates: a probe written through every node is readable in a Redis
   * of every rack ({@link ReplicationProbe}, shared with the process-based DynomiteCluster). Polled,
   * never slept; a probe is written again each round, since a real Dynomite node drops the
   * replication of writes made before its peer links are up. Call it after restarting or thawing a node when a test needs replication again.
   *
   * @throws IllegalStateException naming every node not ready (and what it lacked) after {@code bound}
   */
  public void awaitReplicating(Duration bound) {
    // Without a Redis (in-memory companion), a node's client port reads its rack's copy.
    ReplicationProbe.await(
        nodes.stream()
            .map(n -> new ReplicationProbe.Writer(n.server().role(), n.rack(), n.clientPort()))
            .toList(),
        nodes.stream()
            .map(n -> new ReplicationProbe.Store(
                n.rack(), n.redisOrNull() != null ? n.redisPort() : n.clientPort()))
            .toList(),
        bound);
  }

  /** Stops and removes every container. Idempotent. */
  @Override
  public void close() {
    if (closed) return;
    stopAll();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or about to: nothing to remove
    }
  }

  private synchronized void stopAll() {
    if (closed) return;
    closed = true;
    for (ContainerNode n : nodes) {
      quietly(n.server());
      if (n.redisOrNull() != null) quietly(n.redisOrNull());
    }
  }

  private static void quietly(ContainerProcess p) {
    try {
      p.close();
    } catch (RuntimeException e) {
      // best effort: the container may be gone already
    }
  }

  @Override
  public String toString() {
    return "ContainerCluster" + nodes;
  }

  /** Configures and starts a {@link ContainerCluster}. */
  public static final class Builder {
    private String datacenter = "dc1";
    private int racks = 3;
    private int nodesPerRack = 1;
    private Server server = Server.COMPANION;
    private Backend backend = Backend.REDIS;
    private String hashtag;
    private String companionImage;
    private String redisImage;
    private String dynomiteImage;
    private Duration startupTimeout = Duration.ofSeconds(60);

    private Builder() {}

    public Builder datacenter(String dc) {
      if (dc == null || dc.isBlank())
        throw new IllegalArgumentException("datacenter must not be empty");
      this.datacenter = dc;
      return this;
    }

    /** Number of racks (named rack1..rackN); each holds a full copy of the data. Default 3. */
    public Builder racks(int racks) {
      if (racks < 1) throw new IllegalArgumentException("racks must be >= 1, was " + racks);
      this.racks = racks;
      return this;
    }

    /** Nodes per rack, tokens evenly spaced and the same in every rack. Default 1. */
    public Builder nodesPerRack(int n) {
      if (n < 1) throw new IllegalArgumentException("nodesPerRack must be >= 1, was " + n);
      this.nodesPerRack = n;
      return this;
    }

    /** Companion (default) or real Dynomite nodes. */
    public Builder server(Server server) {
      this.server = Objects.requireNonNull(server, "server");
      return this;
    }

    /**
     * {@link Backend#REDIS} (default: one real redis-server container per node) or
     * {@link Backend#MEMORY} (the companion's in-memory store; not for Dynomite).
     */
    public Builder backend(Backend backend) {
      this.backend = Objects.requireNonNull(backend, "backend");
      return this;
    }

    /** Two characters, e.g. {@code "{}"}; null (default) for none. */
    public Builder hashtag(String hashtag) {
      if (hashtag != null && hashtag.length() != 2) {
        throw new IllegalArgumentException(
            "hashtag must be exactly two characters, was '" + hashtag + "'");
      }
      this.hashtag = hashtag;
      return this;
    }

    /** Overrides {@link ContainerImages#companion()}. */
    public Builder companionImage(String image) {
      this.companionImage = image;
      return this;
    }
    /** Overrides {@link ContainerImages#redis()}. */
    public Builder redisImage(String image) {
      this.redisImage = image;
      return this;
    }
    /** Overrides {@link ContainerImages#dynomite()}. */
    public Builder dynomiteImage(String image) {
      this.dynomiteImage = image;
      return this;
    }

    /** How long each process may take to become ready, and then the cluster to replicate. Default 60 s. */
    public Builder startupTimeout(Duration timeout) {
      if (timeout == null || timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("startupTimeout must be positive, was " + timeout);
      }
      this.startupTimeout = timeout;
      return this;
    }

    /**
     * Starts every container (Redis first, then the nodes, each group in parallel), waits until
     * each answers, then until the cluster replicates ({@link ContainerCluster#awaitReplicating}).
     * On failure everything started is removed and the error names the nodes not ready, with logs.
     */
    public ContainerCluster start() {
      if (server == Server.DYNOMITE && backend == Backend.MEMORY) {
        throw new IllegalArgumentException(
            "Dynomite nodes need backend REDIS (Dynomite has no in-memory store)");
      }
      String redisImg = redisImage != null ? redisImage : ContainerImages.redis();
      String nodeImg = switch (server) {
        case COMPANION -> companionImage != null ? companionImage : ContainerImages.companion();
        case DYNOMITE ->
          Optional.ofNullable(dynomiteImage)
              .or(ContainerImages::dynomite)
              .orElseThrow(() -> new IllegalStateException(ContainerImages.dynomiteHint()));
      };
      LocalImages.requirePresent(nodeImg);
      if (backend == Backend.REDIS) {
        LocalImages.requirePresent(redisImg);
      }

      List<Spec> specs = NodeContainers.layout(racks, nodesPerRack, backend == Backend.REDIS);
      NodeContainers containers = new NodeContainers(datacenter, hashtag, startupTimeout);

      List<ContainerNode> nodes = new ArrayList<>();
      List<GenericContainer<?>> redisContainers = new ArrayList<>();
      List<GenericContainer<?>> nodeContainers = new ArrayList<>();
      for (Spec s : specs) {
        ContainerProcess redis = null;
        if (s.redisPort() > 0) {
          GenericContainer<?> rc = containers.redis(redisImg, s.redisPort());
          redisContainers.add(rc);
          redis = new ContainerProcess(
              "redis " + s.rack() + "/" + s.index(), s.redisPort(), rc, startupTimeout);
        }
        List<Spec> others = specs.stream().filter(o -> o != s).toList();
        GenericContainer<?> nc = server == Server.COMPANION
            ? containers.companion(nodeImg, s, others)
            : containers.dynomite(nodeImg, s, others);
        nodeContainers.add(nc);
        ContainerProcess proc = new ContainerProcess(
            server.name().toLowerCase() + " " + s.rack() + "/" + s.index(),
            s.clientPort(),
            nc,
            startupTimeout);
        nodes.add(new ContainerNode(
            datacenter,
            s.rack(),
            s.index(),
            s.token(),
            s.clientPort(),
            s.peerPort(),
            s.adminPort(),
            proc,
            redis));
      }

      ContainerCluster cluster = new ContainerCluster(datacenter, hashtag, nodes);
      try {
        startAll(redisContainers);
        startAll(nodeContainers);
        // Answering PING is not enough: real Dynomite drops replication until its peers connect.
        cluster.awaitReplicating(startupTimeout);
      } catch (RuntimeException e) {
        String logs = describeLogs(nodes);
        cluster.close();
        throw new IllegalStateException(
            "could not start " + server.name().toLowerCase() + " cluster (" + racks + " racks x "
                + nodesPerRack + "): " + rootMessage(e) + logs,
            e);
      }
      return cluster;
    }

    private static void startAll(List<GenericContainer<?>> containers) {
      if (containers.isEmpty()) return;
      try {
        Startables.deepStart(containers).join();
      } catch (CompletionException e) {
        throw e.getCause() instanceof RuntimeException re ? re : e;
      }
    }

    private static String describeLogs(List<ContainerNode> nodes) {
      StringBuilder b = new StringBuilder();
      for (ContainerNode n : nodes) {
        // The failed process's log is in the cause; the other nodes' logs may explain it.
        try {
          String logs = n.server().logs();
          if (!logs.isBlank()) {
            b.append("\n--- ").append(n.server()).append(" ---\n").append(tail(logs, 15));
          }
        } catch (RuntimeException ignored) {
          // container gone: no logs
        }
      }
      return b.toString();
    }

    private static String tail(String text, int lines) {
      String[] all = text.split("\n");
      return String.join("\n", List.of(all).subList(Math.max(0, all.length - lines), all.length));
    }

    private static String rootMessage(Throwable t) {
      Throwable c = t;
      while (c.getCause() != null && c.getCause() != c) c = c.getCause();
      return c == t ? String.valueOf(t.getMessage()) : t.getMessage() + " (cause: " + c + ")";
    }
  }
}
