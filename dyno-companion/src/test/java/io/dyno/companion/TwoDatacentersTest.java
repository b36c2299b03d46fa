package io.dyno.companion;

import static io.dyno.companion.Clients.Raw.cmd;
import static io.dyno.companion.Clients.await;
import static io.dyno.companion.Clients.http;
import static io.dyno.companion.Clients.jedis;
import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.companion.Clients.Raw;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Two datacenters as real Dynomite (v0.6.21-rc2, peer links unencrypted) runs them: one
 * cluster_describe lists both, a write reaches every rack of both (the other datacenter after
 * the link's delay), and DC_EACH_SAFE_QUORUM is answered {@code Failed to achieve Quorum} with
 * every node up while DC_QUORUM and DC_SAFE_QUORUM succeed.
 */
class TwoDatacentersTest {
  private static final Duration LINK = Duration.ofMillis(200);
  private static final String NO_QUORUM = "-ERR Dynomite: Failed to achieve Quorum\r\n";
  private static CompanionCluster cluster;

  @BeforeAll
  static void start() {
    cluster = CompanionCluster.builder()
        .datacenters("dc1", "dc2")
        .racks(3)
        .nodesPerRack(2)
        .interDatacenterDelay(LINK)
        .start();
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void oneClusterDescribeListsBothDatacentersAndTheirRacks() {
    String describe = http(cluster.node("rack1", 0).adminUrl() + "/cluster_describe");
    assertThat(describe).contains("\"name\":\"dc1\"").contains("\"name\":\"dc2\"");
    assertThat(cluster.datacenters()).containsExactly("dc1", "dc2");
    assertThat(cluster.nodes()).hasSize(12);
    assertThat(cluster.datacenterNodes("dc2"))
        .hasSize(6)
        .allMatch(n -> n.datacenter().equals("dc2"));
  }

  @Test
  void aWriteReachesEveryRackOfTheOtherDatacenterOnlyAfterTheLinkDelay() {
    long start = System.nanoTime();
    try (Jedis j = jedis(cluster.ownerOf("dc1", "rack1", "region:k"))) {
      assertThat(j.set("region:k", "v1")).isEqualTo("OK");
    }
    for (String rack : cluster.racks()) {
      try (Jedis dc2 = jedis(cluster.ownerOf("dc2", rack, "region:k"))) {
        // Not there before the link could have carried it (the write was acknowledged in dc1).
        if (System.nanoTime() - start < LINK.toNanos() / 2) {
          assertThat(dc2.get("region:k")).isNull();
        }
        await(
            "region:k in dc2/" + rack,
            Duration.ofSeconds(5),
            () -> "v1".equals(dc2.get("region:k")));
      }
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(LINK);
  }

  @Test
  void eachSafeQuorumFailsToAchieveQuorumWithBothDatacentersUpAsDynomiteDoes() throws Exception {
    int port = cluster.node("rack1", 0).clientPort();
    for (String level : new String[] {"DC_QUORUM", "DC_SAFE_QUORUM"}) {
      try (Raw r = new Raw(port)) {
        r.send(cmd("DYNO_CONFIG:CONN_CONSISTENCY", level));
        assertThat(r.read(5, 2000)).isEqualTo("+OK\r\n");
        r.send(cmd("SET", "each:k", "v"));
        assertThat(r.read(5, 3000)).as(level).isEqualTo("+OK\r\n");
      }
    }
    try (Raw r = new Raw(port)) {
      r.send(cmd("DYNO_CONFIG:CONN_CONSISTENCY", "DC_EACH_SAFE_QUORUM"));
      assertThat(r.read(5, 2000)).isEqualTo("+OK\r\n");
      r.send(cmd("SET", "each:k", "v"));
      assertThat(r.read(NO_QUORUM.length(), 3000)).isEqualTo(NO_QUORUM);
      r.send(cmd("GET", "each:k"));
      assertThat(r.read(NO_QUORUM.length(), 3000)).isEqualTo(NO_QUORUM);
    }
  }

  @Test
  void eachSafeQuorumSucceedsInASingleDatacenter() throws Exception {
    try (CompanionCluster one =
            CompanionCluster.builder().racks(3).nodesPerRack(1).start();
        Raw r = new Raw(one.node("rack1", 0).clientPort())) {
      r.send(cmd("DYNO_CONFIG:CONN_CONSISTENCY", "DC_EACH_SAFE_QUORUM"));
      assertThat(r.read(5, 2000)).isEqualTo("+OK\r\n");
      r.send(cmd("SET", "each:one", "v"));
      assertThat(r.read(5, 3000)).isEqualTo("+OK\r\n");
    }
  }
}
