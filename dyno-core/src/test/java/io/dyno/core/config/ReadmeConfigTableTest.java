package io.dyno.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.core.testing.ReadmeTables;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The settings table of docs/configuration.md is the documentation of {@link Setting}'s table: one row per
 * setting, with the same default, unit, Archaius property and liveness.
 */
class ReadmeConfigTableTest {
  @Test
  void theReadmeTableMatchesTheSettingTable() throws IOException {
    Map<String, List<String>> rows = readmeRows();
    assertThat(rows.keySet())
        .as("settings in docs/configuration.md's table")
        .containsExactlyInAnyOrderElementsOf(
            Setting.ALL.stream().map(s -> s.name).toList());
    for (Setting<?> s : Setting.ALL) {
      List<String> row = rows.get(s.name);
      String dflt = row.get(1).replace("`", "");
      String text = s.defaultText();
      assertThat(dflt)
          .as(s.name + " default")
          .satisfiesAnyOf(
              d -> assertThat(d).isEqualTo(text), d -> assertThat(d).startsWith(text + " ("));
      assertThat(row.get(2)).as(s.name + " unit").isEqualTo(s.unit);
      String property = row.get(3);
      if (s.property == null) {
        assertThat(property).as(s.name + " has no property").matches("–|\\(.*");
      } else {
        assertThat(property)
            .as(s.name + " property")
            .matches("`" + Pattern.quote(s.property) + "`.*");
      }
      assertThat(row.get(4)).as(s.name + " changes live").isEqualTo(s.live.readme);
    }
  }

  @Test
  void theLiveSubsetIsWhatTheArchaiusSourceFollows() {
    assertThat(DynoConfig.LIVE_SETTINGS)
        .contains("maxConnsPerHost", "socketTimeout", "requestDeadline")
        .doesNotContain("datastoreMode", "idleTimeout", "lbStrategy");
    for (String live : DynoConfig.LIVE_SETTINGS) {
      assertThat(ArchaiusDynoConfig.PROPERTIES)
          .as("a live setting has a property")
          .containsValue(live);
    }
  }

  private static Map<String, List<String>> readmeRows() throws IOException {
    return ReadmeTables.settingRows("## Settings", 5);
  }
}
