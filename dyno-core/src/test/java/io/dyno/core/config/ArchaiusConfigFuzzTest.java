package io.dyno.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.netflix.archaius.config.DefaultSettableConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Archaius values for every Dyno setting, at start and then changed live. Property: at start the
 * config is built, or an {@link IllegalArgumentException} names a property under {@code dyno.fz.};
 * a later change never throws out of Archaius and never leaves an invalid or null config in use.
 */
class ArchaiusConfigFuzzTest {
  private static final String PREFIX = "dyno.fz.";
  private static final List<String> SUFFIXES =
      new ArrayList<>(ArchaiusDynoConfig.PROPERTIES.keySet());

  @FuzzTest(maxDuration = "10s")
  void archaiusValues(FuzzedDataProvider data) {
    DefaultSettableConfig props = new DefaultSettableConfig();
    for (String suffix : SUFFIXES) {
      if (data.consumeBoolean()) {
        props.setProperty(PREFIX + suffix, data.consumeString(24));
      }
    }
    DynoConfig base = DynoConfig.builder().applicationName("fz").build();
    ArchaiusDynoConfig config;
    try {
      config = new ArchaiusDynoConfig(props, base);
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).contains(PREFIX);
      return;
    }
    try (config) {
      DynoConfig first = config.get();
      assertThat(first).isNotNull();
      assertThat(first.describe()).isNotEmpty();
      while (data.remainingBytes() > 0) {
        String suffix = data.pickValue(SUFFIXES);
        if (data.consumeBoolean()) {
          props.setProperty(PREFIX + suffix, data.consumeString(24));
        } else {
          props.clearProperty(PREFIX + suffix);
        }
        config.refresh();
        DynoConfig now = config.get();
        assertThat(now).isNotNull();
        // What is in use always rebuilds: no invalid combination slipped in.
        assertThat(now.toBuilder().build()).isEqualTo(now);
        // Settings outside the live subset never change after start.
        assertThat(now.idleTimeout()).isEqualTo(first.idleTimeout());
        assertThat(now.datastoreMode()).isEqualTo(first.datastoreMode());
      }
    }
  }
}
