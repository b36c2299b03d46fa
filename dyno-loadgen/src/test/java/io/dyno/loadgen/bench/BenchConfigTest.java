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

  @Test
  void everySettingReadsBackFromTheTextItIsReportedAs() {
    BenchConfig c = BenchConfig.builder()
        .keys(5000)
        .valueSize(100, 300)
        .readers(2)
        .writers(3)
        .threads(4)
        .readPercent(60)
        .readRate(1500.5)
        .writeRate(200)
        .distribution(KeyDistribution.HOT_SET)
        .zipfTheta(0.5)
        .hotSet(20, 70)
        .window(400, 30)
        .backfill(false)
        .backfillThreads(3)
        .duration(Duration.ofMillis(2500))
        .pipeline(2, 6)
        .consistency(ConsistencyLevel.DC_QUORUM)
        .keyPrefix("t:")
        .virtualThreads(0)
        .hedge("after:5")
        .deadline(Duration.ofMillis(700))
        .muxConnections(2)
        .muxWrites(16)
        .connections(3)
        .tracing(TracingMode.values()[TracingMode.values().length - 1])
        .build();
    BenchConfig.Builder fromText = BenchConfig.builder();
    c.asMap().forEach(fromText::set);
    assertThat(fromText.build().asMap()).isEqualTo(c.asMap());
    assertThat(c.toBuilder().build().asMap()).isEqualTo(c.asMap());
  }

  @Test
  void theRulesNameTheFirstSettingAtFault() {
    assertThatThrownBy(() -> BenchConfig.builder()
            .set("valueSize", "100")
            .set("valueSizeMax", "10")
            .build())
        .hasMessage("setting valueSizeMax: must be >= valueSize 100, was 10");
    assertThatThrownBy(() -> BenchConfig.builder().async(10).pipeline(2, 3).build())
        .hasMessageContaining("setting async: runs single commands");
    assertThatThrownBy(() -> BenchConfig.builder().virtualThreads(5).async(10).build())
        .hasMessageContaining("setting virtualThreads: runs blocking callers");
    assertThatThrownBy(() -> BenchConfig.builder().hedge("sometimes").build())
        .hasMessageStartingWith("setting hedge: ");
    assertThatThrownBy(() -> BenchConfig.builder().keys(0).valueSize(0).build())
        .hasMessage("setting keys: must be >= 1, was 0");
  }

  @Test
  void settingTextHasUnitsAndEndlessWords() {
    assertThat(SettingValues.parseLong("keys", "20k")).isEqualTo(20_000);
    assertThat(SettingValues.parseLong("keys", "1_000")).isEqualTo(1_000);
    assertThat(SettingValues.parseDuration("d", "1.5s")).isEqualTo(Duration.ofMillis(1500));
    assertThat(SettingValues.parseDuration("d", "2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(SettingValues.parseDurationOrEndless("d", "forever")).isEqualTo(Duration.ZERO);
    assertThat(SettingValues.fmtRate(2000.0)).isEqualTo("2000");
    assertThat(SettingValues.fmtRate(-1)).isEqualTo("0");
    assertThatThrownBy(() -> SettingValues.parseBool("backfill", "maybe"))
        .hasMessage("setting backfill: \"maybe\" is not true/false");
    assertThatThrownBy(() -> SettingValues.parseDuration("warmup", "soon"))
        .hasMessageContaining("setting warmup: \"soon\" is not a duration");
  }
}
