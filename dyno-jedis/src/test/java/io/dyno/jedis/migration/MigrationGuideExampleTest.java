package io.dyno.jedis.migration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.netflix.archaius.config.DefaultSettableConfig;
import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.Host;
import io.dyno.core.HostSupplier;
import io.dyno.core.HostToken;
import io.dyno.core.TokenMapSupplier;
import io.dyno.core.config.ArchaiusDynoConfig;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.topology.ClusterDescribeTokenMapSupplier;
import io.dyno.core.topology.ClusterDescription;
import io.dyno.jedis.DynoDeadlineExceededException;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.DynoPipeline;
import io.dyno.jedis.testing.RedisServers;
import io.dyno.jedis.testing.TestCertificates;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.Response;

/**
 * The compiled example of docs/MIGRATION.md: every row of its table that has code, run against the
 * companion (and, for TLS/AUTH, real redis-server). Row numbers refer to that table; keep them in step.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MigrationGuideExampleTest {
  private CompanionCluster cluster;
  private String rack;

  @BeforeAll
  void start() {
    cluster = CompanionCluster.builder().racks(2).nodesPerRack(2).hashtag("{}").start();
    rack = cluster.racks().get(0);
  }

  @AfterAll
  void stop() {
    cluster.close();
  }

  /** Rows 2-3: a HostSupplier and a TokenMapSupplier written by hand (was HostBuilder / HostToken). */
  private HostSupplier hosts() {
    return () -> cluster.nodes().stream()
        .map(n -> Host.builder("127.0.0.1", n.clientPort())
            .rack(n.rack())
            .datacenter(n.datacenter())
            .build())
        .toList();
  }

  private TokenMapSupplier tokens() {
    return activeHosts -> cluster.nodes().stream()
        .map(n -> new HostToken(
            n.token(),
            Host.builder("127.0.0.1", n.clientPort())
                .rack(n.rack())
                .datacenter(n.datacenter())
                .build()))
        .toList();
  }

  @Test
  void rows1to6_builderSuppliersAndConnectionPoolConfiguration() throws Exception {
    // Row 4: an AbstractTokenMapSupplier subclass returning a fixed JSON string.
    String json = cluster.nodes().stream()
        .map(n -> """
        {"token":"%d","hostname":"127.0.0.1","ip":"127.0.0.1","zone":"%s","dc":"%s","port":"%d","hashtag":"{}"}""".formatted(n.token(), n.rack(), n.datacenter(), n.clientPort()))
        .collect(Collectors.joining(",", "[", "]"));
    TokenMapSupplier fromJson = activeHosts -> ClusterDescription.parse(json).hostTokens();
    assertThat(fromJson.getTokens(List.of())).hasSize(4);

    try (DynoJedisClient client = DynoJedisClient.builder()
        .applicationName("orders") // row 1: withApplicationName
        .hostSupplier(hosts()) // row 2: withHostSupplier
        .tokenMapSupplier(tokens()) // row 3: withTokenMapSupplier
        .config(DynoConfig.builder() // row 6: withCPConfig(ConnectionPoolConfigurationImpl)
            .maxConnsPerHost(3)
            .maxTimeoutWhenExhausted(Duration.ofMillis(800))
            .connectTimeout(Duration.ofMillis(3000))
            .socketTimeout(Duration.ofMillis(12000))
            .maxFailoverCount(3)
            .retryPolicy(RetryPolicy.retryNTimes(2))
            .build())
        .localRack(rack) // row 6: setLocalRack
        .hashtag("{}") // row 6: withHashtag
        .compressionThreshold(5120) // row 6: THRESHOLD compression
        .build()) {
      client.set("{user1}:name", "ada");
      assertThat(client.get("{user1}:name")).isEqualTo("ada");
      assertThat(client.topology().replicas("{user1}:name").get(0).rack()).isEqualTo(rack);
    }

    // Row 5: the default HttpEndpointBasedTokenMapSupplier read Dynomite-manager's
    // cluster_describe;
    // here the same document, hash tag included (no .hashtag(...) needed: the cluster's is used).
    CompanionNode any = cluster.nodes().get(0);
    try (ClusterDescribeTokenMapSupplier manager = ClusterDescribeTokenMapSupplier.builder()
            .endpoint(any.adminUrl() + ClusterDescribeTokenMapSupplier.MANAGER_PATH)
            .build();
        DynoJedisClient client = DynoJedisClient.builder()
            .applicationName("orders")
            .hostSupplier(manager)
            .tokenMapSupplier(manager)
            .localRack(rack)
            .build()) {
      assertThat(client.topology().hasher().hashtag()).isEqualTo("{}");
      client.sadd("{cart9}:a", "x");
      client.sadd("{cart9}:b", "x");
      assertThat(client.sinter("{cart9}:a", "{cart9}:b")).containsExactly("x");
    }
  }

  @Test
  void row7_archaiusPropertiesChangeARunningClient() throws Exception {
    DefaultSettableConfig archaius =
        new DefaultSettableConfig(); // your application's Archaius 2 Config
    archaius.setProperty("dyno.orders.connection.maxConnsPerHost", "3");
    archaius.setProperty("dyno.orders.retryPolicy", "RetryNTimes:2");
    try (ArchaiusDynoConfig config = new ArchaiusDynoConfig(
            archaius, DynoConfig.builder().applicationName("orders").build());
        DynoJedisClient client = DynoJedisClient.builder()
            .config(config)
            .hostSupplier(hosts())
            .tokenMapSupplier(tokens())
            .localRack(rack)
            .build()) {
      client.set("slow", "1");
      cluster.nodes().forEach(n -> n.delayReplies(Duration.ofMillis(300)));
      try {
        assertThat(client.get("slow")).isEqualTo("1");
        archaius.setProperty("dyno.orders.connection.requestDeadline", "100");
        assertThatThrownBy(() -> client.get("slow"))
            .isInstanceOf(DynoDeadlineExceededException.class);
      } finally {
        cluster.clearFaults();
      }
    }
  }

  @Test
  void rows8to9_consistencyAndDatastoreMode() throws Exception {
    // Row 8: withConnectionPoolConsistency("DC_QUORUM") → default call options (or per call).
    try (DynoJedisClient client = DynoJedisClient.builder()
        .applicationName("orders")
        .hostSupplier(hosts())
        .tokenMapSupplier(tokens())
        .localRack(rack)
        .callOptions(CallOptions.defaults().withConsistency(ConsistencyLevel.DC_QUORUM))
        .build()) {
      client.set("q", "1");
      assertThat(client
              .withOptions(CallOptions.defaults().withConsistency(ConsistencyLevel.DC_ONE))
              .get("q"))
          .isEqualTo("1");
    }
    // Row 9: isDatastoreClient(true) → datastoreMode(true): straight to each node's Redis.
    try (CompanionCluster redisBacked = CompanionCluster.builder()
            .racks(1)
            .nodesPerRack(1)
            .backend(Backend.REDIS)
            .start();
        DynoJedisClient client = DynoJedisClient.builder()
            .applicationName("orders")
            .hostSupplier(redisBacked.hostSupplier())
            .tokenMapSupplier(redisBacked.tokenMapSupplier())
            .localRack(redisBacked.racks().get(0))
            .datastoreMode(true)
            .build()) {
      client.set("d", "1");
      assertThat(client.get("d")).isEqualTo("1");
    }
  }

  @Test
  void rows10to11_tlsAndPassword() throws Exception {
    TestCertificates certs = new TestCertificates();
    String[] args = Stream.concat(
            Arrays.stream(certs.redisTlsArgs(certs.serverCert, certs.serverKey)),
            Stream.of("--requirepass", "s3cret"))
        .toArray(String[]::new);
    try (RedisServers redis = RedisServers.withTls(1, 1, args);
        DynoJedisClient client = DynoJedisClient.builder()
            .applicationName("orders")
            .hostSupplier(redis::hosts)
            .tokenMapSupplier(h -> redis.tokens())
            .localRack("rack1")
            .datastoreMode(true)
            .tls(certs.trustingSocketFactory()) // row 10: withSSLSocketFactory
            .datastorePassword("s3cret") // row 11: Host password
            .build()) {
      client.set("t", "1");
      assertThat(client.get("t")).isEqualTo("1");
    }
  }

  @Test
  void rows12to16_dualWritesMetricsPipelinesScanAndClose() throws Exception {
    DefaultRegistry registry = new DefaultRegistry();
    try (CompanionCluster shadow =
        CompanionCluster.builder().racks(1).nodesPerRack(1).start()) {
      DynoJedisClient shadowClient = DynoJedisClient.builder()
          .applicationName("orders-shadow")
          .hostSupplier(shadow.hostSupplier())
          .tokenMapSupplier(shadow.tokenMapSupplier())
          .localRack(shadow.racks().get(0))
          .build();
      DynoJedisClient client = DynoJedisClient.builder()
          .applicationName("orders")
          .hostSupplier(hosts())
          .tokenMapSupplier(tokens())
          .localRack(rack)
          .shadowCluster(shadowClient, 100, 1000) // row 12: withDualWrite...
          .registry(registry) // row 13: Servo monitors
          .build();
      try {
        client.set("mirrored", "1");
        await("the write mirrored to the shadow cluster")
            .atMost(Duration.ofSeconds(10))
            .pollInterval(Duration.ofMillis(10))
            .untilAsserted(() -> assertThat(shadowClient.get("mirrored")).isEqualTo("1"));
        assertThat(registry.stream().count()).isPositive();

        try (DynoPipeline p = client.pipelined()) { // row 14: pipelines, any keys
          p.set("p:a", "1");
          p.set("p:b", "2");
          Response<String> b = p.get("p:b");
          p.sync();
          assertThat(b.get()).isEqualTo("2");
        }
        assertThat(client.scanAll("p:*").toList())
            .containsExactlyInAnyOrder("p:a", "p:b"); // row 16: dyno_scan
      } finally {
        client.close(); // row 17: stopClient (also closes the shadow client)
      }
    }
  }
}
