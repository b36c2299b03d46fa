package io.dyno.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.HostToken;
import org.junit.jupiter.api.Test;

/** {@code dyno.hosts} entries: {@code host:port:rack:datacenter:token[:securePort]}, refused by index and form. */
class ClusterSourceTest {

  @Test
  void anEntryGivesTheNodeItsPortsRackDatacenterAndToken() {
    HostToken t =
        ClusterSource.parseHost(0, " 10.0.0.7:8102:us-east-1a:us-east-1:4294967295:8443 ");
    assertThat(t.token()).isEqualTo(4294967295L);
    assertThat(t.host().hostname()).isEqualTo("10.0.0.7");
    assertThat(t.host().port()).isEqualTo(8102);
    assertThat(t.host().securePort()).isEqualTo(8443);
    assertThat(t.host().rack()).isEqualTo("us-east-1a");
    assertThat(t.host().datacenter()).isEqualTo("us-east-1");
    assertThat(ClusterSource.parseHost(1, "h:8102:r:d:0").host().securePort()).isEqualTo(-1);
  }

  @Test
  void aBadEntryIsRefusedNamingItsIndexAndWhatIsWrong() {
    assertThatThrownBy(() -> ClusterSource.parseHost(2, "h:8102:r:d:-1"))
        .hasMessage("dyno.hosts[2]=h:8102:r:d:-1: token must be within 0..4294967295, was -1");
    assertThatThrownBy(() -> ClusterSource.parseHost(0, "h:http:r:d:0"))
        .hasMessage("dyno.hosts[0]=h:http:r:d:0: port is not a number: http");
    assertThatThrownBy(() -> ClusterSource.parseHost(0, "h:8102::d:0"))
        .hasMessageContaining("a field is empty");
  }
}
