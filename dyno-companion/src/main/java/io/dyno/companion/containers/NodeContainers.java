package io.dyno.companion.containers;

import io.dyno.companion.dynomite.DynomiteYaml;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;

/**
 * What each container of a {@link ContainerCluster} runs: the nodes' layout (racks, tokens, free
 * ports), each node's command line or generated {@code dynomite.yml}, and the wait that says a
 * container is ready. Every container uses host networking and a local image, never pulled.
 */
final class NodeContainers {
  /** What a companion node prints once it accepts connections. */
  static final String READY_LINE = "Companion node ready";

  private static final String DYNOMITE_CONF = "/tmp/dynomite.yml";

  /** One node's place in the cluster and its ports ({@code redisPort} -1: no redis-server). */
  record Spec(
      String rack,
      int index,
      long token,
      int clientPort,
      int peerPort,
      int adminPort,
      int redisPort) {
    DynomiteYaml.Node node(String dc) {
      return new DynomiteYaml.Node(dc, rack, token, clientPort, peerPort, adminPort, redisPort);
    }
  }

  private final String datacenter;
  private final String hashtag;
  private final Duration startupTimeout;

  NodeContainers(String datacenter, String hashtag, Duration startupTimeout) {
    this.datacenter = datacenter;
    this.hashtag = hashtag;
    this.startupTimeout = startupTimeout;
  }

  /**
   * Racks rack1..rackN of {@code nodesPerRack} nodes each, tokens evenly spaced and the same in
   * every rack, every port a free one.
   */
  static List<Spec> layout(int racks, int nodesPerRack, boolean withRedis) {
    List<Spec> specs = new ArrayList<>();
    long step = 0xFFFFFFFFL / nodesPerRack;
    for (int r = 1; r <= racks; r++) {
      for (int i = 0; i < nodesPerRack; i++) {
        specs.add(new Spec(
            "rack" + r,
            i,
            i * step,
            FreePorts.next(),
            FreePorts.next(),
            FreePorts.next(),
            withRedis ? FreePorts.next() : -1));
      }
    }
    return specs;
  }

  GenericContainer<?> companion(String image, Spec s, List<Spec> others) {
    List<String> args = new ArrayList<>(List.of(
        "--node",
        "--dc",
        datacenter,
        "--rack",
        s.rack,
        "--token",
        Long.toString(s.token),
        "--port",
        Integer.toString(s.clientPort),
        "--peer-port",
        Integer.toString(s.peerPort),
        "--admin-port",
        Integer.toString(s.adminPort)));
    if (s.redisPort > 0) {
      args.addAll(List.of("--backend", "redis", "--redis-port", Integer.toString(s.redisPort)));
    } else {
      args.addAll(List.of("--backend", "memory"));
    }
    if (!others.isEmpty()) {
      args.add("--seeds");
      // Dynomite's seed format, plus the companion's optional client port.
      args.add(String.join(
          ",",
          others.stream()
              .map(o -> o.node(datacenter).seed().line() + ":" + o.clientPort)
              .toList()));
    }
    if (hashtag != null) {
      args.addAll(List.of("--hashtag", hashtag));
    }
    return base(image)
        .withCommand(args.toArray(String[]::new))
        .waitingFor(RespPing.logLine("companion " + s.rack + "/" + s.index, READY_LINE)
            .withStartupTimeout(startupTimeout));
  }

  GenericContainer<?> dynomite(String image, Spec s, List<Spec> others) {
    // stats_interval 500 ms: /info counters (recomputed every 30 s by default) prompt for tests.
    String yaml = DynomiteYaml.of(
        s.node(datacenter),
        others.stream().map(o -> o.node(datacenter).seed()).toList(),
        hashtag,
        500);
    String[] command = ContainerImages.dynomiteCommand()
        .replace("{conf}", DYNOMITE_CONF)
        .trim()
        .split("\\s+");
    return base(image)
        .withCopyToContainer(Transferable.of(yaml), DYNOMITE_CONF)
        .withCreateContainerCmdModifier(cmd -> cmd.withEntrypoint(command).withCmd(new String[0]))
        .waitingFor(RespPing.ping("dynomite " + s.rack + "/" + s.index, s.clientPort)
            .withStartupTimeout(startupTimeout));
  }

  GenericContainer<?> redis(String image, int port) {
    return redis(image, port, startupTimeout);
  }

  static GenericContainer<?> redis(String image, int port, Duration startupTimeout) {
    // Arguments only: the local image's entrypoint is redis-server, and the official image's
    // entrypoint script also prepends redis-server to arguments starting with "-".
    return base(image)
        .withCommand(
            "--bind",
            "127.0.0.1",
            "--port",
            String.valueOf(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--protected-mode",
            "no")
        .waitingFor(RespPing.logLine("redis on 127.0.0.1:" + port, "Ready to accept connections")
            .withStartupTimeout(startupTimeout));
  }

  @SuppressWarnings("resource") // closed by ContainerCluster.close()
  private static GenericContainer<?> base(String image) {
    return new GenericContainer<>(DockerImageName.parse(image))
        .withNetworkMode("host")
        .withImagePullPolicy(name -> false) // never pull: see ../shared/docker-here.md
        .withLabel("io.dyno.containers", "true");
  }
}
