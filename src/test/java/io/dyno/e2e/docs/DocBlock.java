package io.dyno.e2e.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One {@code java} code block of the project's documentation, and the Java source that compiles it.
 *
 * <p>What a page may say about a block, in an HTML comment on the line right before its fence (so a
 * reader of the raw page sees it and the rendered page does not):
 * <ul>
 *   <li>{@code <!-- not compiled: reason -->}: the block is left out, deliberately, for that reason;
 *   <li>{@code <!-- given: declarations -->}: names a fragment uses without declaring them (fields,
 *       nested types), placed in the class that wraps it;
 *   <li>{@code <!-- not run: reason -->}: a block that could run (a {@code main}, or a fragment given
 *       only a client) and is compiled but not run, for that reason.
 * </ul>
 *
 * <p>Every block carries its own imports, as a reader copies it; nothing is imported for it. A
 * block that declares a top-level type is a compilation unit, compiled exactly as written. Any other
 * block is a fragment: its leading {@code import} lines (blank and comment lines may come between
 * them) go above a generated class, and the rest becomes the body of a method of that class. The
 * types a {@code given} declaration names are resolved by the block's imports too. A wildcard import
 * is refused: a block names the package of each class it uses.
 */
record DocBlock(
    Path page,
    String pageName,
    int line,
    String code,
    String notCompiled,
    String given,
    String notRun) {
  private static final Pattern FENCE =
      Pattern.compile("^(\\s*)```\\s*java\\s*$", Pattern.CASE_INSENSITIVE);
  private static final Pattern NOTE =
      Pattern.compile("^\\s*<!--\\s*(not compiled|given|not run):(.*?)-->\\s*$");
  private static final Pattern TOP_LEVEL_TYPE = Pattern.compile(
      "(?m)^(?:public\\s+)?(?:final\\s+|abstract\\s+)?(?:class|interface|record|enum)\\s+(\\w+)");
  private static final Pattern SUPPLIED_NAME =
      Pattern.compile("(?:DynoJedisClient|String)\\s+\\w+");
  private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");
  private static final Pattern IMPORT =
      Pattern.compile("^\\s*import\\s+(static\\s+)?[\\w.]+(\\.\\*)?\\s*;\\s*(//.*)?$");
  private static final Pattern WILDCARD_IMPORT =
      Pattern.compile("(?m)^\\s*import\\s+(?:static\\s+)?[\\w.]+\\.\\*\\s*;");
  private static final Pattern MAIN =
      Pattern.compile("public\\s+static\\s+void\\s+main\\s*\\(\\s*String\\s*\\[\\]");

  /** The pages whose blocks are checked: the README, every page under docs/ and each module's README. */
  static List<Path> pages(Path root) {
    List<Path> pages = new ArrayList<>();
    pages.add(root.resolve("README.md"));
    try (Stream<Path> docs = Files.list(root.resolve("docs"));
        Stream<Path> modules = Files.list(root)) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
      modules
          .map(m -> m.resolve("README.md"))
          .filter(Files::isRegularFile)
          .sorted()
          .forEach(pages::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pages;
  }

  /** Every {@code java} block of a page, in order; its line is the 1-based line of its opening fence. */
  static List<DocBlock> read(Path root, Path page) {
    List<String> lines;
    try {
      lines = Files.readAllLines(page);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String name = root.relativize(page).toString();
    List<DocBlock> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher fence = FENCE.matcher(lines.get(i));
      if (!fence.matches()) {
        continue;
      }
      String indent = fence.group(1);
      int end = i + 1;
      while (end < lines.size() && !lines.get(end).trim().equals("```")) {
        end++;
      }
      if (end == lines.size()) {
        throw new IllegalStateException(
            name + ":" + (i + 1) + ": a java block that is never closed");
      }
      StringBuilder code = new StringBuilder();
      for (String l : lines.subList(i + 1, end)) {
        code.append(l.startsWith(indent) ? l.substring(indent.length()) : l).append('\n');
      }
      String notCompiled = null;
      String given = null;
      String notRun = null;
      for (int n = i - 1; n >= 0; n--) {
        Matcher note = NOTE.matcher(lines.get(n));
        if (!note.matches()) {
          break;
        }
        String text = note.group(2).trim();
        switch (note.group(1)) {
          case "not compiled" -> notCompiled = text;
          case "given" -> given = text;
          default -> notRun = text;
        }
      }
      blocks.add(new DocBlock(page, name, i + 1, code.toString(), notCompiled, given, notRun));
      i = end;
    }
    return blocks;
  }

  /** Where the block is, as a failure names it: {@code docs/using.md:11}. */
  String where() {
    return pageName + ":" + line;
  }

  boolean isCompilationUnit() {
    return TOP_LEVEL_TYPE.matcher(code).find();
  }

  boolean hasMain() {
    return isCompilationUnit() && MAIN.matcher(code).find();
  }

  /**
   * Whether the block is a fragment every given name of which the test can supply (a
   * {@code DynoJedisClient dyno} on the companion cluster, or a {@code String}), so it is run too.
   */
  boolean runsOnSuppliedNames() {
    if (isCompilationUnit() || given == null || notRun != null) {
      return false;
    }
    return Arrays.stream(given.split(";"))
        .map(String::trim)
        .filter(d -> !d.isEmpty())
        .allMatch(d -> SUPPLIED_NAME.matcher(d).matches());
  }

  /** The class the compiled block's source declares first (the file must carry its simple name). */
  String className() {
    Matcher type = TOP_LEVEL_TYPE.matcher(code);
    if (type.find()) {
      Matcher pkg = PACKAGE.matcher(code);
      return pkg.find() ? pkg.group(1) + "." + type.group(1) : type.group(1);
    }
    return "DocBlock_" + pageName.replaceAll("[^A-Za-z0-9]", "_") + "_" + line;
  }

  /** The wildcard imports of the block ({@code import a.b.*;}), which the docs test refuses. */
  List<String> wildcardImports() {
    List<String> found = new ArrayList<>();
    Matcher m = WILDCARD_IMPORT.matcher(code);
    while (m.find()) {
      found.add(m.group().trim());
    }
    return found;
  }

  /**
   * How many of a fragment's first lines are its imports: up to and including the last
   * {@code import} line before the first line that is neither an import, a comment nor blank.
   */
  int importLines() {
    List<String> lines = code.lines().toList();
    int header = 0;
    for (int i = 0; i < lines.size(); i++) {
      String l = lines.get(i).trim();
      if (IMPORT.matcher(l).matches()) {
        header = i + 1;
      } else if (!l.isEmpty() && !l.startsWith("//")) {
        break;
      }
    }
    return header;
  }

  /** The Java source compiled for this block. */
  String source() {
    if (isCompilationUnit()) {
      return code;
    }
    return String.join("\n", wrapped()) + "\n";
  }

  /**
   * A fragment as compiled, line by line: its imports, the class and method opening, its body, and
   * the closing braces.
   */
  private List<String> wrapped() {
    List<String> lines = code.lines().toList();
    int header = importLines();
    List<String> out = new ArrayList<>(lines.subList(0, header));
    out.add("class " + className() + " {");
    if (given != null) {
      out.add(given);
    }
    out.add("void example() throws Exception {");
    out.addAll(lines.subList(header, lines.size()));
    out.add("}");
    out.add("}");
    return out;
  }

  /** The page's line for a line of {@link #source()} (1-based both), for compiler messages. */
  long pageLine(long sourceLine) {
    if (isCompilationUnit() || sourceLine <= importLines()) {
      return line + sourceLine;
    }
    int opening = given == null ? 2 : 3; // "class X {", the given line, "void example() ... {"
    return line + sourceLine - opening;
  }
}
