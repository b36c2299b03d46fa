package io.dyno.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads a settings table of the manual ({@value #DOC}), for tests that hold the documented settings to the code. */
public final class ReadmeTables {
  /** The page holding the one settings table, relative to the repository root. */
  public static final String DOC = "docs/configuration.md";

  private ReadmeTables() {}

  /**
   * The rows of the first table after the line {@code heading}, before the next heading of that
   * level or higher: setting name (the first word of the first cell) → the row's cells, trimmed.
   * Each row must have {@code columns} cells and name a setting no other row names.
   */
  public static Map<String, List<String>> settingRows(String heading, int columns)
      throws IOException {
    Path doc = null;
    for (Path d = Path.of("").toAbsolutePath(); d != null && doc == null; d = d.getParent()) {
      doc = Files.exists(d.resolve(DOC)) ? d.resolve(DOC) : null;
    }
    assertThat(doc).as(DOC + " above " + Path.of("").toAbsolutePath()).isNotNull();
    List<String> lines = Files.readAllLines(doc);
    int start = lines.indexOf(heading);
    assertThat(start).as(DOC + " has a '" + heading + "' section").isNotNegative();
    int level = headingLevel(heading);
    Map<String, List<String>> rows = new LinkedHashMap<>();
    boolean inCode = false;
    for (String line : lines.subList(start + 1, lines.size())) {
      if (line.startsWith("```")) {
        inCode = !inCode;
      }
      int l = headingLevel(line);
      if (!inCode && l > 0 && l <= level) {
        break;
      }
      if (!line.startsWith("|")) {
        if (rows.isEmpty()) {
          continue;
        }
        break; // the end of the first table
      }
      if (line.startsWith("|---") || line.startsWith("| setting ")) {
        continue;
      }
      List<String> cells = new ArrayList<>();
      for (String cell : line.substring(1, line.length() - 1).split("\\|", -1)) {
        cells.add(cell.trim());
      }
      assertThat(cells).as(line).hasSize(columns);
      String name = cells.get(0).split(" ")[0];
      assertThat(rows.put(name, cells)).as("one " + DOC + " row for " + name).isNull();
    }
    return rows;
  }

  /** 2 for "## Title", 0 for a line that is not a heading. */
  private static int headingLevel(String line) {
    int n = 0;
    while (n < line.length() && line.charAt(n) == '#') {
      n++;
    }
    return n > 0 && n < line.length() && line.charAt(n) == ' ' ? n : 0;
  }
}
