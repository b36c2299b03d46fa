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
 * <p>A block that declares a top-level type is a compilation unit: with imports of its own it is
 * compiled exactly as written, without them the {@link #PRELUDE} imports are put in front. Any
 * other block is a fragment: the body of a method in a generated class, after the prelude.
 */
record DocBlock(
    Path page,
    String pageName,
    int line,
    String code,
    String notCompiled,
    String given,
    String notRun) {
  /** The imports a block without imports of its own is compiled with: the public API, wholesale. */
  static final String PRELUDE = String.join(
      "\n",
      "import io.dyno.companion.*;",
      "import io.dyno.core.*;",
      "import io.dyno.core.config.*;",
      "import io.dyno.core.events.*;",
      "import io.dyno.core.exec.*;",
      "import io.dyno.core.routing.*;",
      "import io.dyno.core.topology.*;",
      "import io.dyno.jedis.*;",
      "import io.dyno.recipes.counter.*;",
      "import io.dyno.recipes.lock.*;",
      "import io.dyno.recipes.ratelimit.*;",
      "import java.time.*;",
      "import java.util.*;",
      "import java.util.concurrent.CompletableFuture;",
      "import org.junit.jupiter.api.*;",
      "import org.junit.jupiter.api.extension.ExtendWith;",
      "import redis.clients.jedis.Response;",
      "import static org.junit.jupiter.api.Assertions.*;",
      "");

  private static final Pattern FENCE =
      Pattern.compile("^(\\s*)```\\s*java\\s*$", Pattern.CASE_INSENSITIVE);
  private static final Pattern NOTE =
      Pattern.compile("^\\s*<!--\\s*(not compiled|given|not run):(.*?)-->\\s*$");
  private static final Pattern TOP_LEVEL_TYPE = Pattern.compile(
      "(?m)^(?:public\\s+)?(?:final\\s+|abstract\\s+)?(?:class|interface|record|enum)\\s+(\\w+)");
  private static final Pattern SUPPLIED_NAME =
      Pattern.compile("(?:DynoJedisClient|String)\\s+\\w+");
  private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");
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

  /** The Java source compiled for this block. */
  String source() {
    if (isCompilationUnit()) {
      return code.contains("\nimport ") || code.startsWith("import ") ? code : PRELUDE + code;
    }
    return PRELUDE + "class " + className() + " {\n" + (given == null ? "" : given + "\n")
        + "void example() throws Exception {\n" + code + "}\n}\n";
  }

  /** The page's line for a line of {@link #source()} (1-based both), for compiler messages. */
  long pageLine(long sourceLine) {
    String before = source().substring(0, source().indexOf(code));
    long codeStarts = before.lines().count() + 1;
    return line + (sourceLine - codeStarts) + 1;
  }
}
