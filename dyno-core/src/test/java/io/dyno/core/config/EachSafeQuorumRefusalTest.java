package io.dyno.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.netflix.archaius.config.DefaultSettableConfig;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.exec.CallOptions;
import org.junit.jupiter.api.Test;

/**
 * DC_EACH_SAFE_QUORUM is refused before anything is sent, per call and client-wide, with the
 * level and the reason in the message (Dynomite answers it "Failed to achieve Quorum" on every
 * multi-datacenter cluster with unencrypted peer links: docs/multi-region.md).
 */
class EachSafeQuorumRefusalTest {
  @Test
  void perCallOptionsRefuseItAtOnceNamingTheLevelAndTheReason() {
    assertThatThrownBy(
            () -> CallOptions.defaults().withConsistency(ConsistencyLevel.DC_EACH_SAFE_QUORUM))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("DC_EACH_SAFE_QUORUM is refused")
        .hasMessageContaining("Failed to achieve Quorum")
        .hasMessageContaining("secure_server_option")
        .hasMessageContaining("DC_SAFE_QUORUM");
  }

  @Test
  void theOtherLevelsAreStillAcceptedPerCall() {
    for (ConsistencyLevel l : new ConsistencyLevel[] {
      ConsistencyLevel.DC_ONE, ConsistencyLevel.DC_QUORUM, ConsistencyLevel.DC_SAFE_QUORUM, null
    }) {
      assertThat(CallOptions.defaults().withConsistency(l).consistency()).isEqualTo(l);
    }
  }

  @Test
  void theClientWideDefaultRefusesItWhenTheConfigIsBuilt() {
    assertThatThrownBy(() -> DynoConfig.builder()
            .defaultConsistency(ConsistencyLevel.DC_EACH_SAFE_QUORUM)
            .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("defaultConsistency")
        .hasMessageContaining("DC_EACH_SAFE_QUORUM is refused")
        .hasMessageContaining("Failed to achieve Quorum");
    assertThat(DynoConfig.builder()
            .defaultConsistency(ConsistencyLevel.DC_SAFE_QUORUM)
            .build()
            .defaultConsistency())
        .isEqualTo(ConsistencyLevel.DC_SAFE_QUORUM);
  }

  @Test
  void anArchaiusPropertyAskingForItIsRejectedNamingTheProperty() {
    DefaultSettableConfig props = new DefaultSettableConfig();
    props.setProperty("dyno.shop.connection.consistency", "dc_each_safe_quorum");
    DynoConfig base = DynoConfig.builder().applicationName("shop").build();
    assertThatThrownBy(() -> new ArchaiusDynoConfig(props, base))
        .hasMessageContaining("dyno.shop.connection.consistency")
        .hasMessageContaining("DC_EACH_SAFE_QUORUM is refused");
  }
}
