package io.dyno.demo;

import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Registry;
import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.companion.CompanionStats;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.routing.Topology;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.DynoPipeline;
import java.io.File;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import redis.clients.jedis.Response;

/**
 * The README's main command: starts an embedded 3-rack x 2-node companion cluster and walks
 * through what Dyno does, printing what happens. Options: {@code --backend memory|redis|auto}
 * (auto, the default, uses real redis-server backends when redis-server is on the PATH).
 * Finishes by itself (about 30-60 s on a busy 2-core machine).
 */
public final class DemoMain {
  private final PrintStream out;
  private final CompanionCluster cluster;
  private final DynoJedisClient client;
  private final Registry registry;

  private DemoMain(
      PrintStream out, CompanionCluster cluster, DynoJedisClient client, Registry registry) {
    this.out = out;
    this.cluster = cluster;
    this.client = client;
    this.registry = registry;
  }

  public static void main(String[] args) throws Exception {
    System.exit(run(args, System.out));
  }

  public static int run(String[] args, PrintStream out) throws Exception {
    Backend backend = null;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--backend") && i + 1 < args.length) {
        String b = args[++i].toLowerCase(Locale.ROOT);
        backend = b.equals("auto") ? null : Backend.valueOf(b.toUpperCase(Locale.ROOT));
      } else {
        throw new IllegalArgumentException(
            "unknown demo argument \"" + args[i] + "\"; usage: demo [--backend memory|redis|auto]");
      }
    }
    long t0 = System.nanoTime();
    section(out, "1. An embedded Dynomite-like cluster: 3 racks x 2 nodes");
    Backend chosen = backend != null ? backend : redisOnPath() ? Backend.REDIS : Backend.MEMORY;
    try (CompanionCluster cluster =
        CompanionCluster.builder().racks(3).nodesPerRack(2).backend(chosen).start()) {
      out.println("started embedded companion cluster, 3 racks x 2 nodes, "
          + chosen.name().toLowerCase(Locale.ROOT) + " backend"
          + (backend == null && chosen == Backend.MEMORY ? " (no redis-server on PATH)" : ""));
      for (CompanionNode n : cluster.nodes()) {
        out.printf(
            "  %-6s token %10d  client %s  admin %s%s%n",
            n.rack(),
            n.token(),
            n.host().id(),
            n.adminUrl(),
            n.redisPort() > 0 ? "  redis 127.0.0.1:" + n.redisPort() : "");
      }
      Registry registry = new DefaultRegistry();
      // Hosts come from the cluster's live supplier (a stopped node is reported DOWN), re-read
      // every second.
      Duration timeout = Duration.ofMillis(500);
      try (DynoJedisClient client = DynoJedisClient.builder()
          .applicationName("demo")
          .hostSupplier(cluster.hostSupplier())
          .tokenMapSupplier(hosts -> cluster.hostTokens())
          .localRack("rack1")
          .config(DynoConfig.builder()
              .applicationName("demo")
              .maxConnsPerHost(8)
              .connectTimeout(timeout)
              .socketTimeout(timeout)
              .build())
          .registry(registry)
          .topologyRefreshPeriod(Duration.ofSeconds(1))
          .build()) {
        new DemoMain(out, cluster, client, registry).walk();
      }
    }
    out.printf("%ndemo finished in %.1f s%n", (System.nanoTime() - t0) / 1e9);
    return 0;
  }

  /** Whether an executable {@code redis-server} is on the PATH (the demo then uses real Redis behind each node). */
  private static boolean redisOnPath() {
    String path = System.getenv("PATH");
    if (path == null) return false;
    for (String dir : path.split(File.pathSeparator)) {
      if (new File(dir, "redis-server").canExecute()) return true;
    }
    return false;
  }

  private static void section(PrintStream out, String title) {
    out.println();
    out.println("== " + title + " " + "=".repeat(Math.max(0, 76 - title.length())));
  }

  private void walk() throws Exception {
    topology();
    tokenAware();
    pipeline();
    quorum();
    failover();
    metrics();
  }

  private void topology() {
    section(out, "2. The topology the client discovered (local rack: rack1)");
    Topology t = client.topology();
    out.println("topology version " + t.version() + ", local rack " + t.localRack() + ", "
        + t.hosts().size() + " nodes");
    for (Topology.TokenRange r : t.tokenRanges()) {
      out.printf(
          "  tokens (%d, %d] -> replicas in order: %s%n",
          r.startExclusive(),
          r.endInclusive(),
          r.replicas().stream().map(h -> h.id() + "/" + h.rack()).toList());
    }
  }

  private void tokenAware() {
    section(out, "3. Token-aware writes and reads: each key goes straight to its owner");
    resetStats();
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      keys.add("user:" + i);
    }
    for (String k : keys) {
      client.set(k, "value-of-" + k);
    }
    for (String k : keys.subList(0, 4)) {
      CompanionNode owner = cluster.ownerOf("rack1", k);
      out.printf(
          "  GET %-8s = %-18s (owner in rack1: %s, token %d)%n",
          k, client.get(k), owner.host().id(), owner.token());
    }
    for (String k : keys.subList(4, keys.size())) {
      client.get(k);
    }
    out.println(
        "server counters after 12 SETs and 12 GETs (forwarded = extra hop inside the rack):");
    printStats();
    long fwd = cluster.nodes().stream().mapToLong(n -> n.stats().forwarded()).sum();
    out.println(
        fwd == 0
            ? "  -> no request was forwarded: the client saved Dynomite's extra hop"
            : "  -> " + fwd + " requests were forwarded (unexpected for a token-aware client)");
  }

  private void pipeline() {
    section(out, "4. A pipeline across nodes: commands for different owners in one batch");
    resetStats();
    List<Response<String>> rs = new ArrayList<>();
    try (DynoPipeline p = client.pipelined()) {
      for (int i = 0; i < 8; i++) {
        p.set("cart:" + i, "item-" + i);
      }
      for (int i = 0; i < 8; i++) {
        rs.add(p.get("cart:" + i));
      }
      out.println("  queued " + p.queued() + " commands; sync()");
      p.sync();
    }
    List<String> vals = new ArrayList<>();
    rs.forEach(r -> vals.add(r.get()));
    out.println("  replies: " + vals);
    Map<String, Integer> perOwner = new LinkedHashMap<>();
    for (int i = 0; i < 8; i++) {
      perOwner.merge(cluster.ownerOf("rack1", "cart:" + i).host().id(), 2, Integer::sum);
    }
    out.println("  commands per owner in rack1: " + perOwner);
    printStats();
  }

  private void quorum() {
    section(out, "5. A per-call DC_QUORUM read (the client's default stays DC_ONE)");
    client.set("balance:42", "100");
    resetStats();
    DynoJedisClient quorum =
        client.withOptions(CallOptions.defaults().withConsistency(ConsistencyLevel.DC_QUORUM));
    out.println("  DC_QUORUM GET balance:42 = " + quorum.get("balance:42"));
    long replicated =
        cluster.nodes().stream().mapToLong(n -> n.stats().replicatedOut()).sum();
    out.println(
        "  the coordinator asked other racks " + replicated + " time(s) to form the quorum:");
    printStats();
    out.println("  DC_ONE GET balance:42 = " + client.get("balance:42")
        + " (answered by the local rack alone)");
  }

  private void failover() throws Exception {
    section(out, "6. Failover: a node is stopped under load");
    String hotKey = "user:1";
    CompanionNode victim = cluster.ownerOf("rack1", hotKey);
    List<String> keys = new ArrayList<>();
    for (int i = 0; keys.size() < 50; i++) {
      String k = "fo:" + i;
      if (cluster.ownerOf("rack1", k) == victim) {
        keys.add(k);
        client.set(k, "v" + i);
      }
    }
    out.println(
        "  load: 4 threads reading 50 keys all owned by " + victim.host().id() + " in rack1");
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong ok = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int seed = t;
      Thread th = new Thread(
          () -> {
            int i = seed;
            while (!stop.get()) {
              try {
                client.get(keys.get(i++ % keys.size()));
                ok.incrementAndGet();
              } catch (RuntimeException e) {
                failed.incrementAndGet();
              }
            }
          },
          "demo-load-" + t);
      th.setDaemon(true);
      threads.add(th);
      th.start();
    }
    try {
      resetStats();
      tick("healthy", 2, victim);
      out.println("  >>> stopping " + victim.host().id() + " (rack1)");
      victim.stop();
      tick("node down", 4, victim);
      out.println("  >>> starting " + victim.host().id() + " again");
      victim.start();
      // Wait (bounded) until the client sends to the local rack again.
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      boolean back = false;
      while (!back && System.nanoTime() < deadline) {
        back = tick("node back", 1, victim) > 0;
      }
      if (back) {
        tick("node back", 1, victim);
      }
      out.println(
          back
              ? "  -> reads returned to the local rack once the node was back"
              : "  -> reads had not returned to the local rack within 20 s");
    } finally {
      stop.set(true);
      for (Thread th : threads) {
        th.join(2000);
      }
    }
    out.printf(
        "  reads during the whole failover: %d succeeded, %d failed%n", ok.get(), failed.get());
  }

  /** Runs {@code seconds} one-second ticks, printing where reads went; returns the victim's requests in the last tick. */
  private long tick(String phase, int seconds, CompanionNode victim) throws InterruptedException {
    long last = 0;
    for (int s = 0; s < seconds; s++) {
      Map<String, Long> before = perRack();
      long vBefore = victim.isRunning() ? victim.stats().requests() : 0;
      long t0 = System.nanoTime();
      while (System.nanoTime() - t0 < 1_000_000_000L) {
        Thread.sleep(50); // pacing the printout, not synchronisation
      }
      Map<String, Long> after = perRack();
      long vAfter = victim.isRunning() ? victim.stats().requests() : 0;
      last = Math.max(0, vAfter - vBefore);
      StringBuilder sb = new StringBuilder();
      after.forEach((rack, n) ->
          sb.append(String.format("%s %6d  ", rack, n - before.getOrDefault(rack, 0L))));
      out.printf(
          "  [%-9s] requests/s by rack: %s| stopped node: %s%n",
          phase, sb, victim.isRunning() ? last : "down");
    }
    return last;
  }

  private Map<String, Long> perRack() {
    Map<String, Long> m = new LinkedHashMap<>();
    for (CompanionNode n : cluster.nodes()) {
      long r = n.isRunning() ? n.stats().requests() : 0;
      m.merge(n.rack(), r, Long::sum);
    }
    return m;
  }

  private void metrics() {
    section(out, "7. The metrics a user would watch (from the client's Spectator registry)");
    DemoMetrics.watched(registry).forEach((k, v) -> out.printf("  %-16s %s%n", k, v));
  }

  private void resetStats() {
    cluster.nodes().forEach(n -> {
      if (n.isRunning()) n.resetStats();
    });
  }

  private void printStats() {
    for (CompanionNode n : cluster.nodes()) {
      if (!n.isRunning()) {
        out.printf("    %-6s %-21s down%n", n.rack(), n.host().id());
        continue;
      }
      CompanionStats s = n.stats();
      out.printf(
          "    %-6s %-21s requests %4d  forwarded %3d  to other racks %3d  from peers %3d%n",
          n.rack(),
          n.host().id(),
          s.requests(),
          s.forwarded(),
          s.replicatedOut(),
          s.peerRequests());
    }
  }
}
