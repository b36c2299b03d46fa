package io.dyno.companion.diff;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The documented differences between the companion and real Dynomite: the table under the heading
 * {@value #HEADING} in the project's README, read here so that a replay accepts a difference only
 * where the table names its step. Its first column names the step as {@code conversation: step
 * name} in backticks ({@code *} matches any text), or says "not in a transcript".
 */
final class KeptDifferences {
  static final String HEADING = "### Where the companion differs from real Dynomite";

  /** One row: which steps it covers and what it says. */
  record Row(String conversation, Pattern step, String text) {
    boolean covers(String conv, String stepName) {
      return conversation.equals(conv) && step.matcher(stepName).matches();
    }
  }

  private KeptDifferences() {}

  static List<Row> read() {
    Path readme = findReadme();
    List<String> lines;
    try {
      lines = Files.readAllLines(readme);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int at = lines.indexOf(HEADING);
    if (at < 0) {
      throw new IllegalStateException(
          readme + " has no heading '" + HEADING + "' (the kept differences)");
    }
    List<Row> rows = new ArrayList<>();
    for (int i = at + 1; i < lines.size() && !lines.get(i).startsWith("#"); i++) {
      String line = lines.get(i);
      if (!line.startsWith("| `")) {
        continue; // prose, the header, the separator, or a row that names no step
      }
      String cell = line.substring(2, line.indexOf(" |", 2)).strip();
      for (String ref : cell.split("`\\s*,?\\s*(<br>)?\\s*`")) {
        ref = ref.replace("`", "");
        int colon = ref.indexOf(": ");
        if (colon < 0) {
          throw new IllegalStateException(
              readme + ": kept difference '" + ref + "' is not 'conversation: step'");
        }
        rows.add(new Row(ref.substring(0, colon), glob(ref.substring(colon + 2)), line));
      }
    }
    return rows;
  }

  private static Pattern glob(String s) {
    List<String> parts = new ArrayList<>();
    for (String part : s.split("\\*", -1)) {
      parts.add(Pattern.quote(part));
    }
    return Pattern.compile(String.join(".*", parts));
  }

  private static Path findReadme() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path p = dir.resolve("README.md");
      if (Files.exists(p) && Files.exists(dir.resolve("dyno-companion"))) {
        return p;
      }
    }
    throw new IllegalStateException(
        "no README.md beside dyno-companion above " + Path.of("").toAbsolutePath());
  }
}
