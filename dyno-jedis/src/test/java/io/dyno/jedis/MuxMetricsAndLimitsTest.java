package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.DistributionSummary;
import com.netflix.spectator.api.Id;
import com.netflix.spectator.api.Registry;
import com.netflix.spectator.api.Timer;
import com.netflix.spectator.api.patterns.PolledMeter;
import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.Host;
import io.dyno.core.HostSupplier;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.DynoConfigBuilder;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.metrics.DynoMetrics;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The multiplexed transport's meters and its in-flight limit, through the documented client
 * against companion nodes on real sockets: queue delay (submit to write, the transport's borrow
 * delay) per request and node, in-flight and queued gauges, and a full connection refusing a
 * command unsent so that the engine moves it on like a pool timeout.
 */
class MuxMetricsAndLimitsTest {

  private static DynoJedisClient client(
      CompanionCluster cluster,
      String app,
      Registry registry,
      int maxInFlight,
      DynoConfigBuilder config) {
    return DynoJedisClient.builder()
        .applicationName(app)
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .registry(registry)
        .transport(Transport.MULTIPLEXED)
        .muxConnectionsPerNode(1)
        .muxMaxInFlight(maxInFlight)
        .config(config.applicationName(app).build())
        .build();
  }

  private static Id id(Registry registry, String name, String app, Host node) {
    return registry.createId(name).withTags("app", app, "node", node.id(), "rack", node.rack());
  }

  private static Timer queueDelay(Registry registry, String app, Host node) {
    return registry.timer(id(registry, DynoMetrics.MUX_QUEUE_DELAY, app, node));
  }

  /** The polled gauge's current value, or null when no such gauge is registered. */
  private static Double gauge(Registry registry, String name, String app, Host node) {
    PolledMeter.update(registry);
    Id want = id(registry, name, app, node);
    return registry.stream()
        .filter(m -> m.id().equals(want))
        .findFirst()
        .map(m -> m.measure().iterator().next().value())
        .orElse(null);
  }

  private static long limitTimeouts(Registry registry, String app, Host node) {
    return registry
        .counter(id(registry, DynoMetrics.MUX_IN_FLIGHT_LIMIT_TIMEOUTS, app, node))
        .count();
  }

  @Test
  void aNodeThatLeavesTheTopologyLosesItsSharedConnections() throws Exception {
    Registry registry = new DefaultRegistry();
    try (CompanionCluster cluster = CompanionCluster.builder()
        .racks(2)
        .nodesPerRack(1)
        .backend(Backend.MEMORY)
        .start()) {
      Host local = cluster.node("rack1", 0).host();
      CompanionNode leaving = cluster.node("rack2", 0);
      AtomicBoolean gone = new AtomicBoolean();
      HostSupplier hosts = () -> cluster.hostSupplier().getHosts().stream()
          .filter(h -> !(gone.get() && h.equals(leaving.host())))
          .toList();
      try (DynoJedisClient client = DynoJedisClient.builder()
          .applicationName("muxleft")
          .hostSupplier(hosts)
          .tokenMapSupplier(known -> cluster.tokenMapSupplier().getTokens(known).stream()
              .filter(t -> known.contains(t.host()))
              .toList())
          .localRack("rack1")
          .registry(registry)
          .transport(Transport.MULTIPLEXED)
          .muxConnectionsPerNode(1)
          .topologyRefreshPeriod(Duration.ofMillis(100))
          .config(DynoConfig.builder()
              .applicationName("muxleft")
              .socketTimeout(Duration.ofMillis(300))
              .build())
          .build()) {
        client.set(
            "left:1", "v"); // both nodes' pools hold a lease, so both have a shared connection
        assertThat(gauge(registry, DynoMetrics.MUX_IN_FLIGHT, "muxleft", leaving.host()))
            .isEqualTo(0.0);
        // The node counts a connection when its own side has accepted it, a moment after the
        // client's connect returns.
        await().atMost(Duration.ofSeconds(2)).until(() -> leaving.stats().clientConnections() > 0);
        gone.set(true);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
          client.get("left:1");
          assertThat(client.topology().hosts()).doesNotContain(leaving.host());
          assertThat(leaving.stats().clientConnections())
              .as("its shared connection closed")
              .isZero();
        });
        assertThat(gauge(registry, DynoMetrics.MUX_IN_FLIGHT, "muxleft", local)).isEqualTo(0.0);
        assertThat(client.get("left:1")).isEqualTo("v");
      }
    }
  }

  @Test
  void everyRequestRecordsItsQueueDelayOnItsNodeAndTheGaugesShowWhatIsInFlight() throws Exception {
    Registry registry = new DefaultRegistry();
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(2)
            .nodesPerRack(1)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = client(
            cluster,
            "muxm",
            registry,
            1024,
            DynoConfig.builder().socketTimeout(Duration.ofSeconds(2)))) {
      Host local = cluster.node("rack1", 0).host();
      Host remote = cluster.node("rack2", 0).host();
      for (int i = 0; i < 50; i++) {
        client.set("qd:" + i, "v" + i);
        assertThat(client.get("qd:" + i)).isEqualTo("v" + i);
      }
      Timer local0 = queueDelay(registry, "muxm", local);
      assertThat(local0.count())
          .as("one sample per request, on the node that carried it")
          .isEqualTo(100);
      assertThat(queueDelay(registry, "muxm", remote).count()).isZero();
      DistributionSummary depth =
          registry.distributionSummary(id(registry, DynoMetrics.MUX_WRITE_COMMANDS, "muxm", local));
      assertThat(depth.count())
          .as("one caller, one command at a time: a write each")
          .isEqualTo(100);
      assertThat(depth.totalAmount()).isEqualTo(100);
      assertThat(gauge(registry, DynoMetrics.MUX_IN_FLIGHT, "muxm", local)).isEqualTo(0.0);
      assertThat(gauge(registry, DynoMetrics.MUX_QUEUED, "muxm", local)).isEqualTo(0.0);

      // A request the node does not answer shows in flight until it fails.
      CompanionNode hung = cluster.node("rack1", 0);
      hung.hang();
      CompletableFuture<String> stuck;
      CompletableFuture<String> behind;
      try {
        stuck = CompletableFuture.supplyAsync(() -> client.get("qd:1"));
        await()
            .atMost(Duration.ofSeconds(2))
            .until(() -> Double.valueOf(1.0)
                .equals(gauge(registry, DynoMetrics.MUX_IN_FLIGHT, "muxm", local)));
        assertThat(gauge(registry, DynoMetrics.MUX_QUEUED, "muxm", local)).isEqualTo(0.0);
        // A second request waits behind the unanswered write (muxMaxWritesInFlight 1): queued, not
        // sent.
        behind = CompletableFuture.supplyAsync(() -> client.get("qd:2"));
        await()
            .atMost(Duration.ofSeconds(2))
            .until(() ->
                Double.valueOf(1.0).equals(gauge(registry, DynoMetrics.MUX_QUEUED, "muxm", local)));
        assertThat(gauge(registry, DynoMetrics.MUX_IN_FLIGHT, "muxm", local)).isEqualTo(1.0);
      } finally {
        hung.unhang();
      }
      // Both time out (2 s socket timeout), the second unsent, and are read from the other rack.
      assertThat(stuck.get(10, TimeUnit.SECONDS)).isEqualTo("v1");
      assertThat(behind.get(10, TimeUnit.SECONDS)).isEqualTo("v2");
    }
  }

  @Test
  void queueDelayIncludesTheWaitForRoomUnderTheInFlightLimit() throws Exception {
    Registry registry = new DefaultRegistry();
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(1)
            .nodesPerRack(1)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = client(
            cluster,
            "muxw",
            registry,
            1,
            DynoConfig.builder()
                .maxTimeoutWhenExhausted(Duration.ofSeconds(3))
                .socketTimeout(Duration.ofSeconds(3)))) {
      CompanionNode node = cluster.node("rack1", 0);
      Host host = node.host();
      client.set("w", "x");
      Timer delay = queueDelay(registry, "muxw", host);
      long before = delay.totalTime();
      node.delayReplies(Duration.ofMillis(400));
      try {
        CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> client.get("w"));
        await()
            .atMost(Duration.ofSeconds(2))
            .until(() -> Double.valueOf(1.0)
                .equals(gauge(registry, DynoMetrics.MUX_IN_FLIGHT, "muxw", host)));
        // The only slot is taken: this one waits for the first reply (~400 ms after it was sent),
        // then goes.
        assertThat(client.get("w")).isEqualTo("x");
        assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("x");
      } finally {
        node.delayReplies(Duration.ZERO);
      }
      assertThat(delay.count()).isEqualTo(3);
      assertThat(TimeUnit.NANOSECONDS.toMillis(delay.totalTime() - before))
          .as("the second GET's wait for the slot is queue delay")
          .isBetween(200L, 3_000L);
      assertThat(limitTimeouts(registry, "muxw", host)).isZero();
    }
  }

  @Test
  void aFullConnectionRefusesACommandUnsentSoItMovesOnButANonIdempotentOneStaysInItsRack()
      throws Exception {
    Registry registry = new DefaultRegistry();
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(2)
            .nodesPerRack(1)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = client(
            cluster,
            "muxl",
            registry,
            1,
            DynoConfig.builder()
                .maxTimeoutWhenExhausted(Duration.ofMillis(300))
                .socketTimeout(Duration.ofSeconds(3)))) {
      CompanionNode hung = cluster.node("rack1", 0);
      Host local = hung.host();
      client.set("l", "x");
      hung.hang();
      CompletableFuture<String> holder;
      try {
        holder = CompletableFuture.supplyAsync(() -> client.get("l"));
        await()
            .atMost(Duration.ofSeconds(2))
            .until(() -> Double.valueOf(1.0)
                .equals(gauge(registry, DynoMetrics.MUX_IN_FLIGHT, "muxl", local)));
        long t0 = System.nanoTime();
        assertThat(client.set("s", "y")).isEqualTo("OK");
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertThat(tookMs)
            .as("waited the borrow timeout (300 ms) for a slot, then moved on")
            .isBetween(280L, 2_500L);
        // A full connection is also what a node that died unnoticed looks like: an INCR moved to
        // rack2 then would never reach rack1.
        assertThatThrownBy(() -> client.incr("counter"))
            .hasMessageContaining("INCR on key \"counter\" was not sent to another rack")
            .hasMessageContaining(local + " could not take it")
            .hasMessageContaining("failoverNonIdempotentWrites");
      } finally {
        hung.unhang();
      }
      assertThat(limitTimeouts(registry, "muxl", local)).isEqualTo(2);
      assertThat(registry
              .counter(registry
                  .createId(DynoMetrics.OP_FAILOVERS)
                  .withTags("app", "muxl", "command", "SET", "rack", "rack2"))
              .count())
          .isEqualTo(1);
      assertThat(holder.get(10, TimeUnit.SECONDS))
          .as("the held GET times out, then fails over")
          .isEqualTo("x");
    }
  }

  @Test
  void withNowhereElseToGoTheRefusalReachesTheCallerNamingTheNodeAndTheLimit() throws Exception {
    Registry registry = new DefaultRegistry();
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(1)
            .nodesPerRack(1)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = client(
            cluster,
            "muxn",
            registry,
            1,
            DynoConfig.builder()
                .maxTimeoutWhenExhausted(Duration.ofMillis(200))
                .socketTimeout(Duration.ofSeconds(3))
                .retryPolicy(RetryPolicy.runOnce()))) {
      CompanionNode hung = cluster.node("rack1", 0);
      Host host = hung.host();
      client.set("n", "x");
      hung.hang();
      CompletableFuture<String> holder;
      try {
        holder = CompletableFuture.supplyAsync(() -> client.get("n"));
        await()
            .atMost(Duration.ofSeconds(2))
            .until(() -> Double.valueOf(1.0)
                .equals(gauge(registry, DynoMetrics.MUX_IN_FLIGHT, "muxn", host)));
        assertThatThrownBy(() -> client.incr("counter"))
            .isInstanceOf(DynoNodeFailureException.class)
            .hasMessageContaining("INCR failed after 0 run(s)")
            .hasMessageContaining("before the command was sent")
            .hasMessageContaining("waiting to send to " + host)
            .hasMessageContaining("the limit (maxInFlight) is 1")
            .hasMessageNotContaining("not idempotent");
      } finally {
        hung.unhang();
      }
      assertThat(limitTimeouts(registry, "muxn", host)).isGreaterThanOrEqualTo(1);
      assertThatThrownBy(() -> holder.get(10, TimeUnit.SECONDS))
          .hasRootCauseInstanceOf(SocketTimeoutException.class);
    }
  }
}
