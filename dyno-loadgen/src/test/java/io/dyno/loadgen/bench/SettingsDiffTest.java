package io.dyno.loadgen.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SettingsDiffTest {

  @Test
  void eachChangeNamesOnlyTheSettingsThatChangedSinceThePreviousOne() {
    Knobs knobs = new Knobs(BenchConfig.builder().readRate(100).build());
    SettingsDiff diff = new SettingsDiff(knobs.asMap());

    knobs.set("readRate", "2000");
    assertThat(diff.next(knobs.asMap())).isEqualTo("readRate=2000");

    knobs.set("readers", "8");
    knobs.set("writeRate", "50");
    assertThat(diff.next(knobs.asMap())).isEqualTo("writeRate=50 readers=8");

    assertThat(diff.next(knobs.asMap())).isEmpty();
  }
}
