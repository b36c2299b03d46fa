package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionClusterExtension;
import io.dyno.core.Host;
import io.dyno.core.HostSupplier;
import io.dyno.core.HostToken;
import io.dyno.core.TokenMapSupplier;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.topology.StaticHostSupplier;
import io.dyno.core.topology.StaticTokenMapSupplier;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue #25 (Netflix/dyno#166): a local rack the application names but the cluster lacks fails
 * {@code build()}, naming the cluster's racks, instead of a warning and every request spread across
 * zones. {@code allowUnknownLocalRack()} opts out; a rack from the environment and a rack that
 * leaves a running cluster keep the warning.
 */
@ExtendWith(CompanionClusterExtension.class)
class LocalRackAtStartupTest {
  private static final Duration REFRESH = Duration.ofMillis(100);

  private final CompanionCluster cluster;

  LocalRackAtStartupTest(CompanionCluster cluster) {
    this.cluster = cluster;
  }

  private DynoJedisClientBuilder client() {
    return DynoJedisClient.builder()
        .applicationName("local-rack")
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .environment(Map.<String, String>of()::get);
  }

  @Test
  void aMistypedLocalRackFailsTheBuildNamingTheClustersRacks() {
    assertThatThrownBy(() -> client().localRack("rack9").build().close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "DynoJedisClient local-rack: local rack 'rack9' is not in the cluster (its racks: rack1, rack2,"
                + " rack3): fix localRack(...), or call allowUnknownLocalRack() to spread requests over every rack");
  }

  @Test
  void allowUnknownLocalRackSpreadsRequestsOverEveryRackInstead() {
    try (DynoJedisClient client =
        client().localRack("rack9").allowUnknownLocalRack().build()) {
      assertThat(client.topology().localRack()).isNull();
      assertThat(IntStream.range(0, 100)
              .mapToObj(i -> client.topology().replicas("key" + i).get(0).rack()))
          .as("first choices come from every rack")
          .contains("rack1", "rack2", "rack3");
      assertThat(client.set("k", "v")).isEqualTo("OK");
      assertThat(client.get("k")).isEqualTo("v");
    }
  }

  @Test
  void aRackFromTheEnvironmentIsUsedWhenKnownAndOnlyWarnsWhenNot() {
    try (DynoJedisClient client =
        client().environment(Map.of("LOCAL_RACK", "rack2")::get).build()) {
      assertThat(client.topology().localRack()).isEqualTo("rack2");
    }
    try (DynoJedisClient client =
        client().environment(Map.of("EC2_AVAILABILITY_ZONE", "us-east-1z")::get).build()) {
      assertThat(client.topology().localRack())
          .as("a zone without nodes: spread, as before")
          .isNull();
      assertThat(client.set("k", "v")).isEqualTo("OK");
    }
  }

  @Test
  void aRackInSeveralDatacentersNeedsTheDatacenterNamed() {
    // Nothing is connected before the rack is checked: these nodes need not exist.
    List<HostToken> tokens = List.of(
        token("dc1", "rack1", 40001), token("dc2", "rack1", 40002), token("dc2", "rack2", 40003));
    assertThatThrownBy(() -> staticClient(tokens).localRack("rack1").build().close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "local rack 'rack1' is in several datacenters (dc1, dc2): set localDatacenter(...)");
    assertThatThrownBy(() -> staticClient(tokens)
            .localRack("rack2")
            .localDatacenter("dc1")
            .build()
            .close())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("local rack 'rack2' is not in the cluster's datacenter 'dc1'"
            + " (the cluster's racks: dc1/rack1, dc2/rack1, dc2/rack2)");
  }

  @Test
  void aLocalRackThatLeavesTheClusterLaterOnlyWarnsAndTheClientKeepsServing() {
    Dropping source = new Dropping(cluster);
    try (DynoJedisClient client = DynoJedisClient.builder()
        .applicationName("rack-leaves")
        .hostSupplier(source)
        .tokenMapSupplier(source)
        .localRack("rack3")
        .topologyRefreshPeriod(REFRESH)
        .build()) {
      assertThat(client.topology().localRack()).isEqualTo("rack3");
      source.drop = h -> h.rack().equals("rack3");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> client.topology().hosts().size() == 4);
      assertThat(client.topology().localRack()).isNull();
      assertThat(client.set("k", "v")).isEqualTo("OK");
      assertThat(client.get("k")).isEqualTo("v");
    }
  }

  /** Started without nodes, the rack cannot be checked at build: the first topology warns, as before. */
  @Test
  void aClientStartedWithoutNodesIsNotFailedLaterByItsRack() {
    Dropping source = new Dropping(cluster);
    source.drop = h -> true;
    try (DynoJedisClient client = DynoJedisClient.builder()
        .applicationName("lazy-rack")
        .config(DynoConfig.builder().failOnStartupIfNoHosts(false).build())
        .hostSupplier(source)
        .tokenMapSupplier(source)
        .localRack("rack9")
        .topologyRefreshPeriod(REFRESH)
        .build()) {
      source.drop = h -> false;
      await()
          .atMost(Duration.ofSeconds(10))
          .ignoreExceptions()
          .until(() -> "OK".equals(client.set("k", "v")));
      assertThat(client.topology().localRack()).isNull();
    }
  }

  private static DynoJedisClientBuilder staticClient(List<HostToken> tokens) {
    return DynoJedisClient.builder()
        .applicationName("two-dcs")
        .environment(Map.<String, String>of()::get)
        .hostSupplier(
            StaticHostSupplier.of(tokens.stream().map(HostToken::host).toArray(Host[]::new)))
        .tokenMapSupplier(StaticTokenMapSupplier.of(tokens.toArray(HostToken[]::new)));
  }

  private static HostToken token(String dc, String rack, int port) {
    return new HostToken(
        0, Host.builder("127.0.0.1", port).rack(rack).datacenter(dc).build());
  }

  /** The companion's nodes and tokens without those {@link #drop} matches (the nodes keep running). */
  private static final class Dropping implements HostSupplier, TokenMapSupplier {
    private final CompanionCluster cluster;
    volatile Predicate<Host> drop = h -> false;

    Dropping(CompanionCluster cluster) {
      this.cluster = cluster;
    }

    @Override
    public List<Host> getHosts() {
      return cluster.hosts().stream().filter(drop.negate()).collect(Collectors.toList());
    }

    @Override
    public List<HostToken> getTokens(Collection<Host> hosts) {
      return cluster.hostTokens().stream()
          .filter(ht -> !drop.test(ht.host()))
          .collect(Collectors.toList());
    }
  }
}
