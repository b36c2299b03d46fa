package io.dyno.e2e.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.Backend;
import io.dyno.companion.containers.ContainerAssumptions;
import io.dyno.companion.containers.ContainerCluster;
import io.dyno.companion.containers.ContainerNode;
import io.dyno.core.config.DynoConfig;
import io.dyno.jedis.DynoJedisClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
 * once the node is back. Bounded to about 30 s.
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
    try (ContainerCluster cluster = ContainerCluster.builder().racks(3).nodesPerRack(2)
        .server(ContainerCluster.Server.COMPANION).backend(Backend.MEMORY).start();
        DynoJedisClient client = DynoJedisClient.builder()
            .config(DynoConfig.builder().applicationName("e2e-local-owner")
                .socketTimeout(Duration.ofMillis(500)).connectTimeout(Duration.ofMillis(500)).build())
            .hostSupplier(cluster.hostSupplier())
            .tokenMapSupplier(cluster.tokenMapSupplier())
            .localRack("rack1")
            .topologyRefreshPeriod(Duration.ofSeconds(1))
            .build()) {
      ContainerNode victim = cluster.node("rack1", 0);
      List<byte[]> keys = new ArrayList<>();
      for (int i = 0; keys.size() < 200; i++) {
        String k = "e2e:" + i;
        if (client.topology().replicas(k).get(0).equals(victim.host())) {
          keys.add(k.getBytes());
        }
      }
      for (byte[] k : keys) {
        client.set(k, VALUE);
      }
      awaitTrue(Duration.ofSeconds(10), () -> keys.stream().allMatch(k -> existsInEveryRack(cluster, k)),
          "preloaded keys replicated to every rack");

      Load load = new Load(client, keys);
      load.start();
      try {
        load.runFor(Duration.ofSeconds(3));
        assertThat(load.reads.get()).as("reads before the fault").isPositive();

        victim.pause(); // frozen: requests to it time out
        load.runFor(Duration.ofSeconds(5));
        victim.unpause();
        load.runFor(Duration.ofSeconds(2));

        victim.kill(); // dead: connections refused
        load.runFor(Duration.ofSeconds(5));
        victim.restart();
        awaitTrue(Duration.ofSeconds(15), victim::isRunning, "victim restarted");

        long before = requestsOn(victim);
        awaitTrue(Duration.ofSeconds(12), () -> requestsOn(victim) > before + 500,
            "local-rack traffic back on " + victim.host());
      } finally {
        load.stop();
      }
      assertThat(load.readFailures).as("failed reads (first: %s)", load.firstReadFailure).isEmpty();
      assertThat(load.reads.get()).isGreaterThan(1000);
      assertThat(load.writes.get()).isPositive();
      for (Map.Entry<String, Long> e : load.writeFailures.entrySet()) {
        // Clear: a named exception with a message naming what failed.
        assertThat(e.getKey()).matches("[\\w.]+Exception: .+");
      }
      System.out.printf("local-owner failure: reads=%d writes=%d readFailures=0 writeFailures=%s%n",
          load.reads.get(), load.writes.get(), load.writeFailures);
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

  /** 40 threads of 80% GET / 20% SET until stopped. */
  private static final class Load {
    final DynoJedisClient client;
    final List<byte[]> keys;
    final AtomicBoolean running = new AtomicBoolean(true);
    final AtomicLong reads = new AtomicLong();
    final AtomicLong writes = new AtomicLong();
    final Map<String, Long> readFailures = new ConcurrentHashMap<>();
    final Map<String, Long> writeFailures = new ConcurrentHashMap<>();
    volatile Throwable firstReadFailure;
    final List<Thread> threads = new ArrayList<>();

    Load(DynoJedisClient client, List<byte[]> keys) {
      this.client = client;
      this.keys = keys;
    }

    void start() {
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
        if (r.nextInt(100) < 80) {
          try {
            client.get(k);
            reads.incrementAndGet();
          } catch (RuntimeException e) {
            if (firstReadFailure == null) {
              firstReadFailure = e;
            }
            readFailures.merge(describe(e), 1L, Long::sum);
          }
        } else {
          try {
            client.set(k, VALUE);
            writes.incrementAndGet();
          } catch (RuntimeException e) {
            writeFailures.merge(describe(e), 1L, Long::sum);
          }
        }
      }
    }

    private static String describe(Throwable e) {
      String m = String.valueOf(e.getMessage());
      return e.getClass().getSimpleName() + ": " + m.replaceAll("\\d+", "N");
    }

    void runFor(Duration d) throws InterruptedException {
      Thread.sleep(d.toMillis()); // the load's duration, not synchronisation
    }

    void stop() throws InterruptedException {
      running.set(false);
      for (Thread t : threads) {
        t.join(5000);
      }
    }
  }
}
