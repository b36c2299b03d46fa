package io.dyno.loadgen.drivers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What Netflix Dyno is told about a cluster: a datacenter inside every rack name, a host name per node of a rack. */
class NetflixDynoTopologyTest {

  private static HostToken node(String address, int port, String rack, long token) {
    return new HostToken(
        token, Host.builder(address, port).rack(rack).datacenter("dc1").build());
  }

  @Test
  void theDatacenterIsTheRacksCommonPrefixAndTwoLoopbackNodesOfARackGetTwoNames() {
    NetflixDynoTopology t = NetflixDynoTopology.of(List.of(
        node("127.0.0.1", 8102, "rack1", 0),
        node("127.0.0.1", 8112, "rack1", 2147483647L),
        node("127.0.0.1", 8122, "rack2", 0),
        node("127.0.0.1", 8132, "rack2", 2147483647L)));

    assertThat(t.datacenter()).isEqualTo("rack");
    assertThat(t.nodes())
        .extracting(n -> n.get("hostname"))
        .containsExactly("127.0.0.1", "localhost", "127.0.0.1", "localhost");
    assertThat(t.nodes().get(1))
        .isEqualTo(Map.of(
            "token", "2147483647",
            "hostname", "localhost",
            "ip", "127.0.0.1",
            "port", "8112",
            "zone", "rack1",
            "dc", "rack"));
  }

  @Test
  void racksWithoutACommonPrefixAreRefusedByName() {
    assertThatThrownBy(() -> NetflixDynoTopology.of(
            List.of(node("10.0.0.1", 8102, "east", 0), node("10.0.0.2", 8102, "west", 0))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("racks [east, west] share no common prefix");
  }

  @Test
  void aThirdNodeOfARackOnOneAddressIsRefusedNamingTheRackAndTheNode() {
    assertThatThrownBy(() -> NetflixDynoTopology.of(List.of(
            node("127.0.0.1", 8102, "rack1", 0),
            node("127.0.0.1", 8112, "rack1", 1),
            node("127.0.0.1", 8122, "rack1", 2))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rack rack1 has more nodes on 127.0.0.1")
        .hasMessageContaining("127.0.0.1:8122");
  }
}
