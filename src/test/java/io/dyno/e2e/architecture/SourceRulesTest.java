package io.dyno.e2e.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Rules about the source text itself, checked over every module's {@code src/main/java} and
 * {@code src/test/java} and the top-level {@code src/test/java}.
 *
 * <p>No inline fully qualified type names in code: they are imported. Comments, javadoc and
 * string or char literals are blanked before matching, and {@code import}/{@code package} lines are
 * skipped. Where the simple name would clash with another type of the same name, the qualified name
 * stays and says so with a {@code // qualified: clashes with X} comment, on its line or on the line
 * just above (the formatter may wrap a trailing comment away from the name).
 * {@code module-info.java} files name modules and packages, not types, and are skipped.
 */
class SourceRulesTest {

  /** Two or more lowercase package segments followed by a capitalised type name. */
  private static final Pattern QUALIFIED_NAME =
      Pattern.compile("(?<![\\w.$])(?:[a-z][a-z0-9_]*\\.){2,}[A-Z]\\w*");

  private static final String ALLOW_MARK = "// qualified:";

  @Test
  void noInlineFullyQualifiedTypeNames() throws IOException {
    Path root = repositoryRoot();
    List<String> found = new ArrayList<>();
    for (Path file : javaSources(root)) {
      found.addAll(qualifiedNames(root, file));
    }
    assertThat(found)
        .as("inline fully qualified type names: import them, or mark a real clash with"
            + " '// qualified: clashes with X'")
        .isEmpty();
  }

  @Test
  void theScannerSeesCodeOnly() {
    String source = String.join(
        "\n",
        "package a.b.c;",
        "import java.util.List;",
        "/** {@link java.util.Map} */",
        "class X {",
        "  @SuppressWarnings(\"java.util.Set\") java.util.Set<String> s;",
        "  Object o = config.get().value; // java.util.Map",
        "  char q = '\"'; String t = \"a.b.C\";",
        "  // qualified: clashes with Y",
        "  java.util.Collection<String> c;",
        "}");
    List<String> lines = List.of(blankCommentsAndLiterals(source).split("\n", -1));
    List<String> raw = List.of(source.split("\n", -1));
    List<String> hits = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      hits.addAll(namesOnLine(lines.get(i), raw, i));
    }
    assertThat(hits).containsExactly("java.util.Set");
  }

  private static List<Path> javaSources(Path root) throws IOException {
    List<Path> trees = new ArrayList<>();
    trees.add(root.resolve("src/test/java"));
    try (Stream<Path> modules = Files.list(root)) {
      modules.filter(Files::isDirectory).forEach(m -> {
        trees.add(m.resolve("src/main/java"));
        trees.add(m.resolve("src/test/java"));
      });
    }
    List<Path> files = new ArrayList<>();
    for (Path tree : trees) {
      if (!Files.isDirectory(tree)) {
        continue;
      }
      try (Stream<Path> walk = Files.walk(tree)) {
        walk.filter(p -> p.toString().endsWith(".java"))
            .filter(p -> !p.getFileName().toString().equals("module-info.java"))
            .sorted()
            .forEach(files::add);
      }
    }
    return files;
  }

  private static List<String> qualifiedNames(Path root, Path file) throws IOException {
    String source = Files.readString(file, StandardCharsets.UTF_8);
    String[] code = blankCommentsAndLiterals(source).split("\n", -1);
    List<String> raw = List.of(source.split("\n", -1));
    List<String> found = new ArrayList<>();
    for (int i = 0; i < code.length; i++) {
      for (String name : namesOnLine(code[i], raw, i)) {
        found.add(root.relativize(file) + ":" + (i + 1) + ": " + name);
      }
    }
    return found;
  }

  private static List<String> namesOnLine(String code, List<String> raw, int index) {
    String trimmed = code.strip();
    if (trimmed.startsWith("import ") || trimmed.startsWith("package ")) {
      return List.of();
    }
    if (raw.get(index).contains(ALLOW_MARK)
        || index > 0 && raw.get(index - 1).contains(ALLOW_MARK)) {
      return List.of();
    }
    List<String> names = new ArrayList<>();
    Matcher m = QUALIFIED_NAME.matcher(code);
    while (m.find()) {
      names.add(m.group());
    }
    return names;
  }

  /** The source with comments and string, text-block and char literals blanked; lines kept. */
  static String blankCommentsAndLiterals(String s) {
    StringBuilder out = new StringBuilder(s.length());
    int i = 0;
    while (i < s.length()) {
      int end;
      if (s.startsWith("//", i)) {
        end = s.indexOf('\n', i);
        end = end < 0 ? s.length() : end;
      } else if (s.startsWith("/*", i)) {
        end = s.indexOf("*/", i + 2);
        end = end < 0 ? s.length() : end + 2;
      } else if (s.startsWith("\"\"\"", i)) {
        end = s.indexOf("\"\"\"", i + 3);
        end = end < 0 ? s.length() : end + 3;
      } else if (s.charAt(i) == '"' || s.charAt(i) == '\'') {
        end = endOfLiteral(s, i);
      } else {
        out.append(s.charAt(i++));
        continue;
      }
      for (int k = i; k < end; k++) {
        out.append(s.charAt(k) == '\n' ? '\n' : ' ');
      }
      i = end;
    }
    return out.toString();
  }

  private static int endOfLiteral(String s, int start) {
    char quote = s.charAt(start);
    int j = start + 1;
    while (j < s.length() && s.charAt(j) != quote && s.charAt(j) != '\n') {
      j += s.charAt(j) == '\\' ? 2 : 1;
    }
    return Math.min(j + 1, s.length());
  }

  private static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("dyno-bom"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(
          "no repository root (a folder holding dyno-bom) above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }
}
