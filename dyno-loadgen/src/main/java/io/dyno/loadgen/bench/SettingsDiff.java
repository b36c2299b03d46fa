package io.dyno.loadgen.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** What changed in the settings since the previous change, as the event says it: "readRate=2000 readers=8". */
final class SettingsDiff {
  private Map<String, String> last;

  SettingsDiff(Map<String, String> initial) {
    this.last = initial;
  }

  /** The settings in {@code now} that differ from the previous call's (the first call: from the initial ones). */
  synchronized String next(Map<String, String> now) {
    List<String> parts = new ArrayList<>();
    now.forEach((n, v) -> {
      if (!v.equals(last.get(n))) parts.add(n + "=" + v);
    });
    last = now;
    return String.join(" ", parts);
  }
}
