package io.dyno.loadgen.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.ConsistencyLevel;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class BenchConfigTest {

  @Test
  void settingsParseFromTextWithUnits() {
    BenchConfig c = BenchConfig.builder()
        .set("keys", "1m")
        .set("valueSize", "100-2000")
        .set("duration", "90s")
        .set("pipeline", "3-10")
        .set("consistency", "dc_quorum")
        .set("distribution", "sliding-window")
        .build();
    assertThat(c.keys).isEqualTo(1_000_000);
    assertThat(c.valueSize).isEqualTo(100);
    assertThat(c.valueSizeMax).isEqualTo(2000);
    assertThat(c.duration).isEqualTo(Duration.ofSeconds(90));
    assertThat(c.pipelineMin).isEqualTo(3);
    assertThat(c.pipelineMax).isEqualTo(10);
    assertThat(c.pipelined()).isTrue();
    assertThat(c.consistency).isEqualTo(ConsistencyLevel.DC_QUORUM);
    assertThat(c.distribution).isEqualTo(KeyDistribution.SLIDING_WINDOW);
  }

  @Test
  void badValuesAreRefusedNamingTheSetting() {
    assertThatThrownBy(() -> BenchConfig.builder().set("keys", "lots"))
        .hasMessageContaining("setting keys")
        .hasMessageContaining("lots");
    assertThatThrownBy(() -> BenchConfig.builder().pipeline(5, 2).build())
        .hasMessageContaining("pipelineMax");
    assertThatThrownBy(
            () -> BenchConfig.builder().readers(0).writers(0).threads(0).build())
        .hasMessageContaining("load thread");
    assertThatThrownBy(() -> BenchConfig.builder().set("colour", "red"))
        .hasMessageContaining("unknown bench setting \"colour\"");
    assertThatThrownBy(() -> BenchConfig.builder().set("consistency", "all"))
        .hasMessageContaining("setting consistency");
  }

  @Test
  void onlyRuntimeSettingsChangeWhileRunningAndBadValuesAreRefused() {
    Knobs k = new Knobs(BenchConfig.builder().readRate(100).build());
    int[] notified = {0};
    k.onChange(x -> notified[0]++);
    assertThat(k.set("readRate", "250")).isTrue();
    assertThat(k.readRate()).isEqualTo(250);
    assertThat(k.set("readRate", "250")).isFalse();
    assertThat(notified[0]).isEqualTo(1);
    assertThatThrownBy(() -> k.set("keys", "5"))
        .hasMessageContaining("keys cannot change while the bench runs");
    assertThatThrownBy(() -> k.set("writeRate", "-1")).hasMessageContaining("writeRate");
    assertThatThrownBy(() -> k.set("readPercent", "101")).hasMessageContaining("readPercent");
  }
}
