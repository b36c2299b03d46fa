package io.dyno.companion;

import io.dyno.companion.internal.KeyHash;
import io.dyno.companion.internal.NodeConfig;
import io.dyno.companion.internal.NodeServer;
import io.dyno.companion.internal.RingEntry;
import io.dyno.companion.internal.Threads;
import io.netty.channel.EventLoopGroup;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;

/**
 * Command line launcher. Cluster mode starts a whole cluster in this process; node mode ({@code --node})
 * runs one node (the container entrypoint). Stops cleanly on Ctrl-C / SIGTERM.
 *
 * <pre>
 * cluster: --racks 3 --nodes-per-rack 2 --backend memory|redis [--base-port 8102] [--hashtag {}] [--dc dc1]
 * node:    --node --dc dc1 --rack rack1 --token 0 --port 8102 --peer-port 8101 --admin-port 22222
 *          [--backend memory|redis --redis-port 22122] [--hashtag {}] [--host 127.0.0.1]
 *          --seeds host:peerPort:rack:dc:token[:clientPort],...
 * </pre>
 */
public final class CompanionMain {
  private static final Set<String> FLAGS = new LinkedHashSet<>(List.of("node", "help"));
  private static final Set<String> OPTIONS = new LinkedHashSet<>(List.of(
      "racks",
      "nodes-per-rack",
      "backend",
      "base-port",
      "hashtag",
      "dc",
      "rack",
      "token",
      "port",
      "peer-port",
      "admin-port",
      "redis-port",
      "seeds",
      "host",
      "peer-timeout-ms",
      "io-threads"));
  private static final Map<String, String> HELP = Map.ofEntries(
      Map.entry("node", "run one node (the container entrypoint) instead of a whole cluster"),
      Map.entry("help", "this help"),
      Map.entry("racks", "cluster mode: racks (default 3)"),
      Map.entry("nodes-per-rack", "cluster mode: nodes per rack (default 2)"),
      Map.entry("backend", "memory | redis (one redis-server per node; default memory)"),
      Map.entry("base-port", "cluster mode: fixed ports from here (default: free ports)"),
      Map.entry("hashtag", "hash tag, e.g. {}"),
      Map.entry("dc", "datacenter (default dc1)"),
      Map.entry("rack", "node mode: this node's rack"),
      Map.entry("token", "node mode: this node's token (unsigned 32-bit)"),
      Map.entry("port", "node mode: client port (default 8102)"),
      Map.entry("peer-port", "node mode: peer port (default 8101)"),
      Map.entry("admin-port", "node mode: admin HTTP port (default 22222)"),
      Map.entry("redis-port", "node mode, redis backend: the redis-server port (default 22122)"),
      Map.entry(
          "seeds", "node mode: the other nodes, host:peerPort:rack:dc:token[:clientPort],..."),
      Map.entry("host", "node mode: the address to bind and announce (default 127.0.0.1)"),
      Map.entry("peer-timeout-ms", "peer request timeout (default 5000)"),
      Map.entry("io-threads", "Netty I/O threads"));

  private CompanionMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> o;
    try {
      o = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      usage(System.err);
      System.exit(2);
      return;
    }
    if (o.containsKey("help")) {
      usage(System.out);
      return;
    }
    try {
      if (o.containsKey("node")) {
        runNode(o);
      } else {
        runCluster(o);
      }
    } catch (IllegalArgumentException | IllegalStateException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(1);
    }
  }

  /** The command line model: every option takes one value except the flags; {@code --help} prints it. */
  static CommandLine.Model.CommandSpec spec() {
    CommandLine.Model.CommandSpec spec =
        CommandLine.Model.CommandSpec.create().name("dyno-companion");
    spec.usageMessage()
        .description(
            "A Dynomite-compatible cluster (cluster mode) or one node (--node, the container entrypoint).")
        .footer(USAGE);
    for (String f : FLAGS) {
      spec.addOption(CommandLine.Model.OptionSpec.builder("--" + f)
          .arity("0")
          .type(boolean.class)
          .usageHelp(f.equals("help"))
          .description(HELP.get(f))
          .build());
    }
    for (String o : OPTIONS) {
      spec.addOption(CommandLine.Model.OptionSpec.builder("--" + o)
          .paramLabel("<value>")
          .type(String.class)
          .description(HELP.get(o))
          .build());
    }
    return spec;
  }

  static Map<String, String> parse(String[] args) {
    CommandLine.ParseResult pr;
    try {
      pr = new CommandLine(spec()).parseArgs(args);
    } catch (CommandLine.UnmatchedArgumentException e) {
      String first = e.getUnmatched().isEmpty() ? "?" : e.getUnmatched().get(0);
      throw new IllegalArgumentException(
          first.startsWith("--")
              ? "unknown option " + first.split("=", 2)[0]
              : "unexpected argument \"" + first + "\"");
    } catch (CommandLine.ParameterException e) {
      throw new IllegalArgumentException(e.getMessage());
    }
    Map<String, String> o = new HashMap<>();
    for (CommandLine.Model.OptionSpec spec : pr.matchedOptions()) {
      String name = spec.longestName().substring(2);
      o.put(
          name,
          FLAGS.contains(name) ? "true" : (String) pr.matchedOptionValue(spec.longestName(), null));
    }
    return o;
  }

  private static int intOpt(Map<String, String> o, String name, int def) {
    String v = o.get(name);
    if (v == null) {
      return def;
    }
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be a number, was \"" + v + "\"");
    }
  }

  private static String required(Map<String, String> o, String name) {
    String v = o.get(name);
    if (v == null) {
      throw new IllegalArgumentException("--" + name + " is required with --node");
    }
    return v;
  }

  private static Backend backend(Map<String, String> o) {
    String b = o.getOrDefault("backend", "memory");
    try {
      return Backend.valueOf(b.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--backend must be memory or redis, was \"" + b + "\"");
    }
  }

  private static void runCluster(Map<String, String> o) throws InterruptedException {
    CompanionCluster.Builder b = CompanionCluster.builder()
        .racks(intOpt(o, "racks", 3))
        .nodesPerRack(intOpt(o, "nodes-per-rack", 2))
        .backend(backend(o))
        .datacenter(o.getOrDefault("dc", "dc1"))
        .peerTimeout(Duration.ofMillis(intOpt(o, "peer-timeout-ms", 5000)));
    if (o.containsKey("hashtag")) {
      b.hashtag(o.get("hashtag"));
    }
    if (o.containsKey("io-threads")) {
      b.ioThreads(intOpt(o, "io-threads", 2));
    }
    if (o.containsKey("base-port")) {
      b.basePort(intOpt(o, "base-port", 8102));
    }
    CompanionCluster cluster = b.start();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(new Thread(
            () -> {
              cluster.close();
              stopped.countDown();
            },
            "companion-shutdown"));
    PrintStream out = System.out;
    out.println("Companion cluster ready: " + cluster.racks().size() + " racks x "
        + cluster.nodes(cluster.racks().get(0)).size()
        + " nodes, backend " + cluster.backend().name().toLowerCase(Locale.ROOT) + ", datacenter "
        + cluster.datacenter()
        + (cluster.hashtag().isEmpty() ? "" : ", hashtag " + cluster.hashtag()));
    out.printf(
        "%-8s %-8s %-11s %-16s %-6s %-6s %s%n",
        "dc", "rack", "token", "client", "peer", "redis", "admin");
    for (CompanionNode n : cluster.nodes()) {
      out.printf(
          "%-8s %-8s %-11d %-16s %-6d %-6s %s%n",
          n.datacenter(),
          n.rack(),
          n.token(),
          "127.0.0.1:" + n.clientPort(),
          n.peerPort(),
          n.redisPort() > 0 ? String.valueOf(n.redisPort()) : "-",
          n.adminUrl());
    }
    CompanionNode first = cluster.nodes().get(0);
    out.println("Cluster describe URL (the README example's argument, or"
        + " ClusterDescribeTokenMapSupplier.builder().endpoint(url)):");
    out.println("  " + clusterDescribeUrl(cluster));
    out.println("Try: redis-cli -p " + first.clientPort() + " SET greeting hello ; faults: curl "
        + first.adminUrl() + "/fault/hang | /fault/clear");
    out.println("Ctrl-C stops the cluster.");
    out.flush();
    stopped.await();
  }

  /**
   * The first node's Dynomite {@code /cluster_describe}: it names each node's peer port, and every
   * node's client port is its peer port + 1 (free ports are taken in such pairs), so a client
   * reading it with its default port rule reaches every node.
   */
  static String clusterDescribeUrl(CompanionCluster cluster) {
    return cluster.nodes().get(0).adminUrl() + "/cluster_describe";
  }

  private static void runNode(Map<String, String> o) throws InterruptedException {
    Backend backend = backend(o);
    int redisPort = -1;
    if (backend == Backend.REDIS) {
      redisPort = intOpt(o, "redis-port", 22122);
    }
    String host = o.getOrDefault("host", "127.0.0.1");
    long token;
    try {
      token = Long.parseLong(required(o, "token"));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--token must be an unsigned 32-bit number, was \"" + o.get("token") + "\"");
    }
    if (token < 0 || token > 0xffffffffL) {
      throw new IllegalArgumentException("--token must be an unsigned 32-bit number, was " + token);
    }
    String hashtag = o.get("hashtag");
    KeyHash.forHashtag(hashtag); // validates
    NodeConfig cfg = new NodeConfig(
        o.getOrDefault("dc", "dc1"),
        required(o, "rack"),
        token,
        host,
        intOpt(o, "port", 8102),
        intOpt(o, "peer-port", 8101),
        intOpt(o, "admin-port", 22222),
        backend,
        redisPort,
        hashtag == null || hashtag.isEmpty() ? null : hashtag,
        Duration.ofMillis(intOpt(o, "peer-timeout-ms", 5000)));
    List<RingEntry> ring = new ArrayList<>();
    String seeds = o.getOrDefault("seeds", "");
    for (String s : seeds.split(",")) {
      if (!s.isBlank()) {
        ring.add(RingEntry.parseSeed(s));
      }
    }
    EventLoopGroup group = Threads.newEventLoopGroup(
        intOpt(o, "io-threads", Math.min(2, Runtime.getRuntime().availableProcessors())),
        "companion-io");
    NodeServer node = new NodeServer(cfg, group);
    try {
      node.bindAll();
    } catch (RuntimeException e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e;
    }
    ring.add(node.selfEntry());
    node.setRing(ring);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(new Thread(
            () -> {
              node.close();
              group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5_000);
              stopped.countDown();
            },
            "companion-shutdown"));
    System.out.println("Companion node ready: " + cfg.datacenter() + "/" + cfg.rack() + " token "
        + token + " client "
        + host + ":" + node.clientPort() + " peer " + node.peerPort() + " admin http://" + host
        + ":" + node.adminPort()
        + " backend " + backend.name().toLowerCase(Locale.ROOT)
        + (redisPort > 0 ? " (redis port " + redisPort + ")" : "")
        + ", " + (ring.size() - 1) + " seeds");
    System.out.flush();
    stopped.await();
  }

  private static void usage(PrintStream out) {
    new CommandLine(spec()).usage(out);
  }

  private static final String USAGE = """
        usage:
          cluster mode: java -jar dyno-companion-<version>-all.jar [--racks 3] [--nodes-per-rack 2]
                        [--backend memory|redis] [--base-port 8102] [--hashtag {}] [--dc dc1]
                        (--base-port: node i gets client base+10i, peer base+10i-1, admin base+10i+1000;
                         without it every port is a free one, each peer port its client port - 1)
          node mode:    java -jar dyno-companion-<version>-all.jar --node --dc dc1 --rack rack1 --token 0
                        --port 8102 --peer-port 8101 --admin-port 22222 [--backend memory|redis --redis-port 22122]
                        [--hashtag {}] --seeds host:peerPort:rack:dc:token[:clientPort],...
                        (seeds are the OTHER nodes; prints "Companion node ready" when listening)""";
}
