package io.dyno.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.netflix.spectator.api.Counter;
import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Meter;
import com.netflix.spectator.api.Registry;
import com.netflix.spectator.api.Tag;
import com.netflix.spectator.api.Timer;
import io.dyno.companion.Backend;
import io.dyno.companion.containers.ContainerAssumptions;
import io.dyno.companion.containers.ContainerCluster;
import io.dyno.companion.containers.ContainerNode;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.jedis.DynoJedisClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The client under load while its local owner really freezes and dies: 40 threads, 80% GET / 20%
 * SET of 1 KiB values over keys that the local rack's node 0 owns, that node's container paused,
 * unpaused, killed and restarted. Reads never fail (the default retry policy fails them over to
 * another rack); writes succeed or fail with a clear exception; traffic returns to the local rack
 * once the node is back.
 *
 * <p>Prints, per phase, the reads and writes done and the engine's own meters (GET/SET outcomes by
 * rack, borrow timeouts, failovers, discarded connections), so a failure says where the call went.
 */
class LocalOwnerFailureContainerTest {
  private static final int THREADS = 40;
  private static final byte[] VALUE = new byte[1024];

  static {
    Arrays.fill(VALUE, (byte) 'x');
  }

  @Test
  void readsNeverFailWhenTheLocalOwnerIsPausedThenKilledAndTrafficReturnsWhenItIsBack() throws Exception {
    ContainerAssumptions.assumeImagesAvailable(ContainerCluster.Server.COMPANION, Backend.MEMORY);
    Registry registry = new DefaultRegistry();
    try (ContainerCluster cluster = ContainerCluster.builder().racks(3).nodesPerRack(2)
        .server(ContainerCluster.Server.COMPANION).backend(Backend.MEMORY).start();
        DynoJedisClient client = DynoJedisClient.builder()
            .config(DynoConfig.builder().applicationName("e2e-local-owner")
                // Sized for this load, as a user running it would: every key here lives on one
                // token range, so all 40 threads use one node per rack, and after a failover each
                // fallback node takes about 20 of them at once. With the default 8 connections
                // per node, callers queue in the client pool; on a starved CI machine (load ~19
                // on 2 cores) that queue outlasted the 800 ms borrow timeout on every replica a
                // read tried, and reads failed with PoolTimeoutException unsent. One
                // connection per thread means no caller waits for another caller's connection.
                .maxConnsPerHost(THREADS)
                // The engine's default socket timeout (2 s), not 500 ms: it must stay above the
                // latency of *healthy* nodes on the machine that runs the test. In that CI run,
                // healthy rack2 and rack3 nodes were taken out of rotation for 500 ms read
                // timeouts, and three such runs in a row fail a read under the default retry
                // policy. The paused node still times out, after 2 s instead of 0.5 s.
                .socketTimeout(Duration.ofSeconds(2))
                .connectTimeout(Duration.ofMillis(500)).build())
            .registry(registry)
            .hostSupplier(cluster.hostSupplier())
            .tokenMapSupplier(cluster.tokenMapSupplier())
            .localRack("rack1")
            .topologyRefreshPeriod(Duration.ofSeconds(1))
            .build()) {
      ContainerNode victim = cluster.node("rack1", 0);
      List<byte[]> keys = new ArrayList<>();
      Map<String, Integer> fallbackOrders = new TreeMap<>();
      for (int i = 0; keys.size() < 200; i++) {
        String k = "e2e:" + i;
        List<Host> replicas = client.topology().replicas(k);
        if (replicas.get(0).equals(victim.host())) {
          keys.add(k.getBytes());
          fallbackOrders.merge(replicas.stream().map(Host::rack).toList().toString(), 1, Integer::sum);
        }
      }
      System.out.println("local-owner: victim " + victim.host() + ", replica orders of the 200 keys: "
          + fallbackOrders);
      for (byte[] k : keys) {
        client.set(k, VALUE);
      }
      awaitTrue(Duration.ofSeconds(10), () -> keys.stream().allMatch(k -> existsInEveryRack(cluster, k)),
          "preloaded keys replicated to every rack");

      Load load = new Load(client, keys, registry);
      load.start();
      try {
        load.phase("normal", Duration.ofSeconds(3));
        assertThat(load.reads.get()).as("reads before the fault").isPositive();

        victim.pause(); // frozen: requests to it time out
        load.phase("paused", Duration.ofSeconds(5));
        victim.unpause();
        load.phase("unpaused", Duration.ofSeconds(2));

        victim.kill(); // dead: connections refused
        load.phase("killed", Duration.ofSeconds(5));
        load.enter("restarted");
        victim.restart();
        awaitTrue(Duration.ofSeconds(15), victim::isRunning, "victim restarted");

        long before = requestsOn(victim);
        awaitTrue(Duration.ofSeconds(12), () -> requestsOn(victim) > before + 500,
            "local-rack traffic back on " + victim.host());
      } finally {
        load.stop();
        System.out.print(load.report());
      }
      assertThat(load.readFailures).as("failed reads; first: %s", load.firstReadFailure()).isEmpty();
      assertThat(load.reads.get()).isGreaterThan(1000);
      assertThat(load.writes.get()).isPositive();
      // The faults were really felt and taken by the other racks: both fallback racks served reads
      // while the local owner was frozen and while it was dead.
      for (String phase : List.of("paused", "killed")) {
        for (String rack : List.of("rack2", "rack3")) {
          assertThat(load.delta(phase, "op.latency{command=GET,outcome=success,rack=" + rack + "}"))
              .as("GETs served by %s while the local owner was %s", rack, phase).isPositive();
        }
      }
      for (Map.Entry<String, Long> e : load.writeFailures.entrySet()) {
        // Clear: a named exception with a message naming what failed.
        assertThat(e.getKey()).matches("[\\w.]+Exception: .+");
      }
    }
  }

  private static boolean existsInEveryRack(ContainerCluster cluster, byte[] key) {
    // DC_ONE replicates asynchronously; read each rack's owner directly.
    for (String rack : cluster.racks()) {
      for (ContainerNode n : cluster.rack(rack)) {
        try (redis.clients.jedis.Connection c = new redis.clients.jedis.Connection(
            new redis.clients.jedis.HostAndPort("127.0.0.1", n.clientPort()),
            redis.clients.jedis.DefaultJedisClientConfig.builder().protocol(null).autoNegotiateProtocol(false)
                .clientSetInfoConfig(redis.clients.jedis.ClientSetInfoConfig.DISABLED).build())) {
          Object v = c.executeCommand(new redis.clients.jedis.CommandArguments(redis.clients.jedis.Protocol.Command.GET).key(key));
          if (v == null) {
            return false;
          }
        }
        break; // any node of the rack forwards to the owner
      }
    }
    return true;
  }

  private static final Pattern REQUESTS = Pattern.compile("\"client_requests\":(\\d+)");
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  private static long requestsOn(ContainerNode node) {
    try {
      String body = HTTP.send(HttpRequest.newBuilder(URI.create(node.adminUrl() + "/info"))
          .timeout(Duration.ofSeconds(1)).build(), HttpResponse.BodyHandlers.ofString()).body();
      Matcher m = REQUESTS.matcher(body);
      return m.find() ? Long.parseLong(m.group(1)) : -1;
    } catch (Exception e) {
      return -1;
    }
  }

  private static void awaitTrue(Duration bound, BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + bound + " waiting for " + what);
      }
      Thread.sleep(50); // polling interval of a bounded wait, not synchronisation
    }
  }

  /** The engine's counters of interest, flattened to "name{tags}" → count. */
  private static Map<String, Long> meters(Registry registry) {
    Map<String, Long> out = new TreeMap<>();
    for (Meter m : (Iterable<Meter>) registry.stream()::iterator) {
      String name = m.id().name();
      long count;
      if (m instanceof Timer t && name.equals("dyno.op.latency")) {
        count = t.count();
      } else if (m instanceof Counter c && (name.equals("dyno.pool.borrow.timeouts")
          || name.equals("dyno.op.failovers") || name.equals("dyno.op.retries")
          || name.equals("dyno.pool.connections.closed") || name.equals("dyno.pool.connections.failed"))) {
        count = c.count();
      } else {
        continue;
      }
      StringBuilder tags = new StringBuilder();
      for (Tag tag : m.id().tags()) {
        if (!tag.key().equals("app")) {
          tags.append(tags.length() == 0 ? "" : ",").append(tag.key()).append('=').append(tag.value());
        }
      }
      out.put(name.substring("dyno.".length()) + "{" + tags + "}", count);
    }
    return out;
  }

  /** 40 threads of 80% GET / 20% SET until stopped, counted per phase. */
  private static final class Load {
    final DynoJedisClient client;
    final List<byte[]> keys;
    final Registry registry;
    final AtomicBoolean running = new AtomicBoolean(true);
    final AtomicLong reads = new AtomicLong();
    final AtomicLong writes = new AtomicLong();
    final Map<String, Long> readFailures = new ConcurrentHashMap<>();
    final Map<String, Long> writeFailures = new ConcurrentHashMap<>();
    final Map<String, Long> perPhase = new ConcurrentHashMap<>();
    final List<String> readFailureDetails = new ArrayList<>();
    final List<Thread> threads = new ArrayList<>();
    final Map<String, String> phaseReports = new LinkedHashMap<>();
    final Map<String, Map<String, Long>> phaseDeltas = new ConcurrentHashMap<>();
    volatile String phase = "start";
    long phaseStart = System.nanoTime();
    long started = System.nanoTime();
    Map<String, Long> metersAtPhaseStart = Map.of();

    Load(DynoJedisClient client, List<byte[]> keys, Registry registry) {
      this.client = client;
      this.keys = keys;
      this.registry = registry;
    }

    void start() {
      started = System.nanoTime();
      enter("normal");
      for (int t = 0; t < THREADS; t++) {
        Thread th = new Thread(this::loop, "load-" + t);
        th.setDaemon(true);
        threads.add(th);
        th.start();
      }
    }

    private void loop() {
      ThreadLocalRandom r = ThreadLocalRandom.current();
      while (running.get()) {
        byte[] k = keys.get(r.nextInt(keys.size()));
        String p = phase;
        if (r.nextInt(100) < 80) {
          long t0 = System.nanoTime();
          try {
            client.get(k);
            reads.incrementAndGet();
            perPhase.merge(p + " reads", 1L, Long::sum);
          } catch (RuntimeException e) {
            readFailures.merge(describe(e), 1L, Long::sum);
            perPhase.merge(p + " failed reads", 1L, Long::sum);
            synchronized (readFailureDetails) {
              if (readFailureDetails.size() < 3) {
                readFailureDetails.add("[" + p + ", after " + (System.nanoTime() - t0) / 1_000_000 + " ms, key "
                    + new String(k) + "] " + chain(e, ""));
              }
            }
          }
        } else {
          try {
            client.set(k, VALUE);
            writes.incrementAndGet();
            perPhase.merge(p + " writes", 1L, Long::sum);
          } catch (RuntimeException e) {
            writeFailures.merge(describe(e), 1L, Long::sum);
            perPhase.merge(p + " failed writes", 1L, Long::sum);
          }
        }
      }
    }

    String firstReadFailure() {
      synchronized (readFailureDetails) {
        return String.join("\n", readFailureDetails);
      }
    }

    /** The exception and every earlier failure of the same call (attached as suppressed), one per line. */
    private static String chain(Throwable e, String indent) {
      StringBuilder sb = new StringBuilder(e.getClass().getSimpleName() + ": " + e.getMessage());
      for (Throwable s : e.getSuppressed()) {
        sb.append('\n').append(indent).append("  earlier: ").append(chain(s, indent + "  "));
      }
      return sb.toString();
    }

    private static String describe(Throwable e) {
      String m = String.valueOf(e.getMessage());
      return e.getClass().getSimpleName() + ": " + m.replaceAll("\\d+", "N");
    }

    /** Runs the load for {@code d} in the named phase. */
    void phase(String name, Duration d) throws InterruptedException {
      enter(name);
      Thread.sleep(d.toMillis()); // the phase's duration, not synchronisation
    }

    /** Starts a phase: closes the previous one's report (its counts and the engine's meter deltas). */
    synchronized void enter(String name) {
      closePhase();
      phase = name;
      phaseStart = System.nanoTime();
      metersAtPhaseStart = meters(registry);
    }

    private void closePhase() {
      if (phase.equals("start")) {
        return;
      }
      Map<String, Long> now = meters(registry);
      StringBuilder sb = new StringBuilder();
      sb.append(String.format("  %-9s %5d ms: reads=%d failedReads=%d writes=%d failedWrites=%d%n", phase,
          (System.nanoTime() - phaseStart) / 1_000_000, perPhase.getOrDefault(phase + " reads", 0L),
          perPhase.getOrDefault(phase + " failed reads", 0L), perPhase.getOrDefault(phase + " writes", 0L),
          perPhase.getOrDefault(phase + " failed writes", 0L)));
      Map<String, Long> deltas = new TreeMap<>();
      for (Map.Entry<String, Long> e : now.entrySet()) {
        long delta = e.getValue() - metersAtPhaseStart.getOrDefault(e.getKey(), 0L);
        if (delta != 0) {
          deltas.put(e.getKey(), delta);
          sb.append("      ").append(e.getKey()).append(" +").append(delta).append('\n');
        }
      }
      phaseDeltas.put(phase, deltas);
      phaseReports.put(phase, sb.toString());
    }

    /** How much an engine meter grew during a phase. */
    long delta(String phase, String meter) {
      return phaseDeltas.getOrDefault(phase, Map.of()).getOrDefault(meter, 0L);
    }

    String report() {
      StringBuilder sb = new StringBuilder(String.format(
          "local-owner failure: %d threads, %.1f s of load: reads=%d failedReads=%d writes=%d failedWrites=%d%n",
          THREADS, (System.nanoTime() - started) / 1e9, reads.get(), readFailures.values().stream()
              .mapToLong(Long::longValue).sum(), writes.get(),
          writeFailures.values().stream().mapToLong(Long::longValue).sum()));
      phaseReports.values().forEach(sb::append);
      if (!writeFailures.isEmpty()) {
        sb.append("  write failures: ").append(writeFailures).append('\n');
      }
      if (!readFailureDetails.isEmpty()) {
        sb.append("  first read failures:\n").append(firstReadFailure()).append('\n');
      }
      return sb.toString();
    }

    synchronized void stop() throws InterruptedException {
      running.set(false);
      for (Thread t : threads) {
        t.join(5000);
      }
      closePhase();
    }
  }
}
