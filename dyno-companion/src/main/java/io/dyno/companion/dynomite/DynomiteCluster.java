package io.dyno.companion.dynomite;

import io.dyno.companion.containers.FreePorts;
import io.dyno.core.Host;
import io.dyno.core.HostSupplier;
import io.dyno.core.HostToken;
import io.dyno.core.TokenMapSupplier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A real Dynomite cluster on this machine: one {@code dynomite} process and one
 * {@code redis-server} per node, started from a Dynomite binary that the user gives (the project
 * ships none: see {@link #binary()}), all on 127.0.0.1. The reference the companion server
 * is compared with, and what the load generator measures against.
 *
 * <pre>{@code
 * try (DynomiteCluster c = DynomiteCluster.builder().racks(3).nodesPerRack(2).start()) {
 *   c.node("rack1", 0).pause(); ... .resume(); .kill(); .start(); .killRedis(); .startRedis();
 * }
 * }</pre>
 *
 * <p>{@link Builder#start()} returns only when the cluster replicates: a probe write through every
 * node is readable in every rack's Redis ({@link ReplicationProbe}). A fresh Dynomite accepts
 * clients about a second before its peer links are up and drops replication until then.
 */
public final class DynomiteCluster implements AutoCloseable {
  /** System property naming the Dynomite binary (env {@code DYNO_DYNOMITE_BINARY}). */
  public static final String BINARY_PROPERTY = "dyno.dynomite.binary";

  private final List<String> datacenters;
  private final String hashtag;
  private final List<DynomiteNode> nodes;
  private final Path workDir;
  private final Thread shutdownHook;
  private volatile boolean closed;

  private DynomiteCluster(
      List<String> datacenters, String hashtag, List<DynomiteNode> nodes, Path workDir) {
    this.datacenters = List.copyOf(datacenters);
    this.hashtag = hashtag;
    this.nodes = List.copyOf(nodes);
    this.workDir = workDir;
    this.shutdownHook = new Thread(this::stopAll, "dyno-dynomite-cluster-cleanup");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The Dynomite binary {@value #BINARY_PROPERTY} (or env {@code DYNO_DYNOMITE_BINARY}) names, if it
   * is executable; empty otherwise. Nothing is searched for: the real-server suite runs where a user
   * says which Dynomite to test against.
   */
  public static Optional<Path> binary() {
    String configured = System.getProperty(BINARY_PROPERTY);
    if (configured == null || configured.isBlank())
      configured = System.getenv("DYNO_DYNOMITE_BINARY");
    if (configured == null || configured.isBlank()) return Optional.empty();
    Path p = Path.of(configured.trim());
    return Files.isExecutable(p) ? Optional.of(p.toAbsolutePath()) : Optional.empty();
  }

  /** Why {@link #binary()} is empty, for skip and failure messages. */
  public static String binaryHint() {
    String configured = System.getProperty(BINARY_PROPERTY, System.getenv("DYNO_DYNOMITE_BINARY"));
    if (configured != null && !configured.isBlank()) {
      return "no Dynomite binary found: " + configured.trim() + " (from -D" + BINARY_PROPERTY
          + " or DYNO_DYNOMITE_BINARY) is not an executable file";
    }
    return "no Dynomite binary found: set env DYNO_DYNOMITE_BINARY=<path> (or -D" + BINARY_PROPERTY
        + "=<path>) to run the real-Dynomite tests";
  }

  /** The (first) datacenter. */
  public String datacenter() {
    return datacenters.get(0);
  }

  /** Every datacenter, in order (one unless {@link Builder#datacenters(String...)} named more). */
  public List<String> datacenters() {
    return datacenters;
  }

  /** The configured hash tag, or null. */
  public String hashtag() {
    return hashtag;
  }

  /** Every node, datacenter by datacenter, rack by rack, in token order within a rack. */
  public List<DynomiteNode> nodes() {
    return nodes;
  }

  public List<String> racks() {
    return nodes.stream().map(DynomiteNode::rack).distinct().toList();
  }

  /** The nodes of one rack of the (first) datacenter. */
  public List<DynomiteNode> rack(String rack) {
    List<DynomiteNode> r = nodes.stream()
        .filter(n -> n.datacenter().equals(datacenter()) && n.rack().equals(rack))
        .toList();
    if (r.isEmpty())
      throw new IllegalArgumentException("no rack '" + rack + "'; racks: " + racks());
    return r;
  }

  /** The node at {@code index} (by token order) in {@code rack} of the (first) datacenter. */
  public DynomiteNode node(String rack, int index) {
    return nodes.stream()
        .filter(
            n -> n.datacenter().equals(datacenter()) && n.rack().equals(rack) && n.index() == index)
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException(
            "no node " + index + " in rack '" + rack + "'; racks: " + racks()));
  }

  /** Every node as a {@link Host}, UP. */
  public List<Host> hosts() {
    return nodes.stream().map(DynomiteNode::host).toList();
  }

  public List<HostToken> hostTokens() {
    return nodes.stream().map(n -> new HostToken(n.token(), n.host())).toList();
  }

  /** Live status: a killed or paused node is DOWN. */
  public HostSupplier hostSupplier() {
    return () -> nodes.stream()
        .map(n -> n.isRunning() ? n.host() : n.host().withStatus(Host.Status.DOWN))
        .toList();
  }

  /** This cluster's tokens (static: Dynomite's tokens do not change while it runs). */
  public TokenMapSupplier tokenMapSupplier() {
    return asked -> hostTokens();
  }

  /**
   * Waits until a write through every running node is readable in every rack's Redis, e.g. after a
   * node was restarted (Dynomite reconnects peers after a few seconds and drops replication until
   * then). Throws naming the nodes that are not replicating when {@code timeout} passes.
   */
  public void awaitReplicating(Duration timeout) {
    List<ReplicationProbe.Writer> writers = nodes.stream()
        .filter(DynomiteNode::isRunning)
        .map(n -> new ReplicationProbe.Writer(
            n.datacenter() + "/" + n.rack() + "/" + n.index(),
            n.datacenter() + "/" + n.rack(),
            n.clientPort()))
        .toList();
    List<ReplicationProbe.Store> stores = nodes.stream()
        .filter(n -> n.redisPid() > 0)
        .map(n -> new ReplicationProbe.Store(n.datacenter() + "/" + n.rack(), n.redisPort()))
        .toList();
    ReplicationProbe.await(writers, stores, timeout);
  }

  /** Deletes every key in every node's Redis (directly: FLUSHALL is not a Dynomite command). */
  public void flushAll() {
    for (DynomiteNode n : nodes) {
      try {
        RawResp.call(n.redisPort(), Duration.ofSeconds(5), "FLUSHALL");
      } catch (IOException e) {
        throw new UncheckedIOException(
            "FLUSHALL on the redis of " + n + " failed: " + e.getMessage(), e);
      }
    }
  }

  /** Kills every process. Idempotent. */
  @Override
  public void close() {
    if (closed) return;
    stopAll();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is already running
    }
  }

  private synchronized void stopAll() {
    if (closed) return;
    closed = true;
    for (DynomiteNode n : nodes) {
      try {
        n.close();
      } catch (RuntimeException e) {
        // best effort: keep stopping the others
      }
    }
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("DynomiteCluster{")
        .append(datacenters)
        .append(hashtag != null ? ", hashtag=" + hashtag : "")
        .append(", files in ")
        .append(workDir)
        .append("}");
    for (DynomiteNode n : nodes) b.append("\n  ").append(n).append(", admin ").append(n.adminUrl());
    return b.toString();
  }

  /** Configures and starts a {@link DynomiteCluster}. */
  public static final class Builder {
    private List<String> datacenters = List.of("dc1");
    private int racks = 3;
    private int nodesPerRack = 1;
    private String hashtag;
    private String redisServer = "redis-server";
    private Path binary;
    private Duration statsInterval = Duration.ofMillis(500);
    private Duration startupTimeout = Duration.ofSeconds(30);
    private Duration timeout = Duration.ofMillis(DynomiteYaml.DEFAULT_TIMEOUT_MS);

    private Builder() {}

    public Builder datacenter(String dc) {
      return datacenters(dc);
    }

    /**
     * Several datacenters, each of {@link #racks(int)} racks of {@link #nodesPerRack(int)} nodes
     * with the same tokens; every node lists every other node, of every datacenter, in its
     * {@code dyn_seeds}: Dynomite's multi-region layout on one machine.
     */
    public Builder datacenters(String... names) {
      if (names == null || names.length == 0)
        throw new IllegalArgumentException("datacenters: name at least one");
      List<String> list = new ArrayList<>();
      for (String dc : names) {
        if (dc == null || dc.isBlank())
          throw new IllegalArgumentException("datacenter must not be empty");
        if (list.contains(dc))
          throw new IllegalArgumentException("datacenters: " + dc + " is named twice");
        list.add(dc);
      }
      this.datacenters = List.copyOf(list);
      return this;
    }

    /** Racks, named rack1..rackN; each holds a full copy of the data. Default 3. */
    public Builder racks(int n) {
      if (n < 1) throw new IllegalArgumentException("racks must be >= 1, was " + n);
      this.racks = n;
      return this;
    }

    /** Nodes per rack, tokens evenly spaced and the same in every rack. Default 1. */
    public Builder nodesPerRack(int n) {
      if (n < 1) throw new IllegalArgumentException("nodesPerRack must be >= 1, was " + n);
      this.nodesPerRack = n;
      return this;
    }

    /** Two characters, e.g. {@code "{}"}; null (the default) for none. */
    public Builder hashtag(String tag) {
      if (tag != null && tag.length() != 2) {
        throw new IllegalArgumentException(
            "hashtag must be exactly two characters, was '" + tag + "'");
      }
      this.hashtag = tag;
      return this;
    }

    /** The redis-server executable (a path, or a name on PATH). Default {@code redis-server}. */
    public Builder redisServer(String executable) {
      this.redisServer = Objects.requireNonNull(executable, "redisServer");
      return this;
    }

    /** The Dynomite binary; default {@link DynomiteCluster#binary()}. */
    public Builder binary(Path path) {
      this.binary = Objects.requireNonNull(path, "binary");
      return this;
    }

    /** Dynomite's {@code stats_interval}: how fresh {@code /info} counters are. Default 500 ms. */
    public Builder statsInterval(Duration d) {
      if (d == null || d.toMillis() < 1)
        throw new IllegalArgumentException("statsInterval must be >= 1 ms, was " + d);
      this.statsInterval = d;
      return this;
    }

    /**
     * Dynomite's {@code timeout}: how long a node waits for a peer or its Redis before answering
     * the client with an error. Default 5 s, as in Dynomite's sample configurations.
     */
    public Builder timeout(Duration d) {
      if (d == null || d.toMillis() < 1)
        throw new IllegalArgumentException("timeout must be >= 1 ms, was " + d);
      this.timeout = d;
      return this;
    }

    /** How long the whole start, readiness included, may take. Default 30 s. */
    public Builder startupTimeout(Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("startupTimeout must be positive, was " + d);
      }
      this.startupTimeout = d;
      return this;
    }

    /**
     * Writes each node's {@code dynomite.yml} into a temporary folder, starts every Redis and then
     * every Dynomite, and returns once the cluster replicates. On failure everything started is
     * stopped and the error names what failed, with the logs of the nodes involved.
     */
    public DynomiteCluster start() {
      Path bin = binary != null
          ? binary
          : DynomiteCluster.binary().orElseThrow(() -> new IllegalStateException(binaryHint()));
      if (!Files.isExecutable(bin))
        throw new IllegalStateException("Dynomite binary " + bin + " is not executable");
      Path dir;
      try {
        dir = Files.createTempDirectory("dyno-dynomite-");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create a folder for the dynomite.yml files", e);
      }
      List<DynomiteYaml.Node> specs = new ArrayList<>();
      long step = 0xFFFFFFFFL / nodesPerRack;
      for (String datacenter : datacenters) {
        for (int r = 1; r <= racks; r++) {
          for (int i = 0; i < nodesPerRack; i++) {
            specs.add(new DynomiteYaml.Node(
                datacenter,
                "rack" + r,
                i * step,
                FreePorts.next(),
                FreePorts.next(),
                FreePorts.next(),
                FreePorts.next()));
          }
        }
      }
      List<DynomiteNode> nodes = new ArrayList<>();
      for (int k = 0; k < specs.size(); k++) {
        DynomiteYaml.Node s = specs.get(k);
        List<DynomiteYaml.Seed> seeds =
            specs.stream().filter(o -> o != s).map(DynomiteYaml.Node::seed).toList();
        String name = s.datacenter() + "-" + s.rack() + "-" + (k % nodesPerRack);
        Path conf = dir.resolve(name + ".yml");
        try {
          Files.writeString(
              conf,
              DynomiteYaml.of(s, seeds, hashtag, statsInterval.toMillis(), timeout.toMillis()));
        } catch (IOException e) {
          throw new UncheckedIOException("cannot write " + conf, e);
        }
        nodes.add(new DynomiteNode(
            s,
            k % nodesPerRack,
            bin,
            conf,
            dir.resolve(name + ".log"),
            redisServer,
            startupTimeout));
      }
      DynomiteCluster cluster = new DynomiteCluster(datacenters, hashtag, nodes, dir);
      try {
        for (DynomiteNode n : nodes) n.startRedis();
        for (DynomiteNode n : nodes) n.start();
        cluster.awaitReplicating(startupTimeout);
        return cluster;
      } catch (RuntimeException e) {
        StringBuilder logs = new StringBuilder();
        for (DynomiteNode n : nodes) {
          String log = n.log();
          if (!log.isBlank())
            logs.append("\n--- ").append(n).append(" ---\n").append(tail(log, 10));
        }
        cluster.close();
        throw new IllegalStateException(
            "could not start a real Dynomite cluster (" + datacenters + " x " + racks + " racks x "
                + nodesPerRack + ", "
                + bin + "): " + e.getMessage() + logs,
            e);
      }
    }

    private static String tail(String text, int lines) {
      String[] all = text.split("\n");
      return String.join("\n", List.of(all).subList(Math.max(0, all.length - lines), all.length));
    }
  }
}
