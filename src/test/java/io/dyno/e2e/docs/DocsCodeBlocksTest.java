package io.dyno.e2e.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.jedis.DynoJedisClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code java} block of README.md, docs/*.md and the modules' READMEs compiles against the
 * real API, as a reader copies it, with the imports it shows and no others (see {@link DocBlock}
 * for how a block becomes a compilation unit and what a page may say about a block). Blocks are
 * also run against a companion cluster of 3 racks x 2 nodes, each over a real redis-server (so Lua
 * scripts run too): a block with {@code public static void main(String[] args)} gets
 * {@code args[0]} = a node's {@code /cluster_describe} URL; a fragment whose given names are only a
 * {@code DynoJedisClient} and Strings gets a client on the cluster. Either must return
 * normally. Blocks marked {@code <!-- not compiled: reason -->} are listed with their reasons.
 * Failures name the page and line of the block.
 */
class DocsCodeBlocksTest {
  private static CompanionCluster cluster;

  @TempDir
  static Path classes;

  @TestFactory
  Stream<DynamicTest> everyJavaBlockCompilesAndEveryMainRuns() {
    List<DocBlock> blocks = allBlocks();
    assertThat(blocks)
        .as("java blocks in README.md, docs/*.md and module READMEs")
        .isNotEmpty();
    return blocks.stream()
        .map(b -> DynamicTest.dynamicTest(b.where() + describe(b), () -> check(b)));
  }

  @Test
  void blocksLeftOutSayWhy() {
    List<DocBlock> leftOut =
        allBlocks().stream().filter(b -> b.notCompiled() != null).toList();
    leftOut.forEach(
        b -> System.out.println("[docs] not compiled: " + b.where() + ": " + b.notCompiled()));
    assertThat(leftOut)
        .allSatisfy(
            b -> assertThat(b.notCompiled()).as(b.where() + ": the reason").isNotBlank());
    List<DocBlock> notRun = allBlocks().stream().filter(b -> b.notRun() != null).toList();
    notRun.forEach(
        b -> System.out.println("[docs] compiled, not run: " + b.where() + ": " + b.notRun()));
    assertThat(notRun)
        .allSatisfy(b -> assertThat(b.notRun()).as(b.where() + ": the reason").isNotBlank());
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static String describe(DocBlock b) {
    if (b.notCompiled() != null) {
      return " (not compiled: " + b.notCompiled() + ")";
    }
    return (b.hasMain() && b.notRun() == null) || b.runsOnSuppliedNames()
        ? " (compiled and run)"
        : " (compiled)";
  }

  private static void check(DocBlock block) throws Exception {
    if (block.notCompiled() != null) {
      assertThat(block.notCompiled())
          .as(block.where() + ": the reason it is not compiled")
          .isNotBlank();
      return;
    }
    assertThat(block.wildcardImports())
        .as(block.where() + ": a block names each class it imports, so the reader sees its package")
        .isEmpty();
    Path out = Files.createDirectories(classes.resolve(block.className() + "_" + block.line()));
    compile(block, out);
    if (block.hasMain() && block.notRun() == null) {
      run(block, out);
    } else if (block.runsOnSuppliedNames()) {
      runFragment(block, out);
    }
  }

  /**
   * Runs a fragment whose given names are all ones this test can supply: a {@link DynoJedisClient}
   * on the companion cluster, or a String (its own name, e.g. {@code userId} = "userId"). A fragment
   * that builds its own client, or needs anything else, is compiled only.
   */
  private static void runFragment(DocBlock block, Path out) throws Exception {
    try (URLClassLoader loader = new URLClassLoader(
        new URL[] {out.toUri().toURL()}, DocsCodeBlocksTest.class.getClassLoader())) {
      Class<?> type = loader.loadClass(block.className());
      List<Field> fields = Arrays.asList(type.getDeclaredFields());
      Constructor<?> constructor = type.getDeclaredConstructor();
      constructor.setAccessible(true);
      Object example = constructor.newInstance();
      try (DynoJedisClient dyno = DynoJedisClient.builder()
          .applicationName("docs")
          .hostSupplier(cluster().hostSupplier())
          .tokenMapSupplier(cluster().tokenMapSupplier())
          .localRack("rack1")
          .build()) {
        for (Field f : fields) {
          f.setAccessible(true);
          f.set(example, f.getType() == String.class ? f.getName() : dyno);
        }
        Method body = type.getDeclaredMethod("example");
        body.setAccessible(true);
        assertTimeoutPreemptively(
            Duration.ofSeconds(60),
            () -> invoke(block, body, example),
            block.where() + ": the block did not return within 60 s");
      } finally {
        cluster().flushAll();
      }
      System.out.println("[docs] " + block.where() + " ran against the companion cluster");
    }
  }

  private static void compile(DocBlock block, Path out) throws Exception {
    String simpleName = block.className().substring(block.className().lastIndexOf('.') + 1);
    Path src = Files.createDirectories(out.resolve("src")).resolve(simpleName + ".java");
    Files.writeString(src, block.source());
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    boolean ok;
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      List<String> options = List.of(
          "-d",
          out.toString(),
          "-classpath",
          System.getProperty("java.class.path"),
          "-proc:none",
          "-Xlint:none");
      ok = javac
          .getTask(null, files, diagnostics, options, null, files.getJavaFileObjects(src))
          .call();
    }
    List<String> errors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        errors.add(block.pageName() + ":" + block.pageLine(d.getLineNumber()) + ": "
            + d.getMessage(Locale.ROOT));
      }
    }
    assertThat(ok)
        .as("the java block at " + block.where() + " does not compile:\n"
            + String.join("\n", errors) + "\n--- compiled as ---\n" + numbered(block.source()))
        .isTrue();
  }

  private static void run(DocBlock block, Path out) throws Exception {
    String url = "http://127.0.0.1:" + cluster().nodes().get(0).adminPort() + "/cluster_describe";
    try (URLClassLoader loader = new URLClassLoader(
        new URL[] {out.toUri().toURL()}, DocsCodeBlocksTest.class.getClassLoader())) {
      Method main = loader.loadClass(block.className()).getMethod("main", String[].class);
      PrintStream original = System.out;
      ByteArrayOutputStream printed = new ByteArrayOutputStream();
      System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
      try {
        assertTimeoutPreemptively(
            Duration.ofSeconds(60),
            () -> invoke(block, main, null, (Object) new String[] {url}),
            block.where() + ": main did not return within 60 s");
      } finally {
        System.setOut(original);
        cluster().flushAll();
      }
      original.println(
          "[docs] " + block.where() + " printed:\n" + printed.toString(StandardCharsets.UTF_8));
    }
  }

  private static void invoke(DocBlock block, Method method, Object target, Object... args)
      throws IllegalAccessException {
    try {
      method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw new AssertionError(
          "the java block at " + block.where() + " threw: " + e.getCause(), e.getCause());
    }
  }

  private static synchronized CompanionCluster cluster() {
    if (cluster == null) {
      cluster = CompanionCluster.builder()
          .racks(3)
          .nodesPerRack(2)
          .backend(Backend.REDIS)
          .basePort(CompanionCluster.freeBasePort(6))
          .start();
    }
    return cluster;
  }

  private static List<DocBlock> allBlocks() {
    Path root = repositoryRoot();
    return DocBlock.pages(root).stream()
        .flatMap(p -> DocBlock.read(root, p).stream())
        .toList();
  }

  private static String numbered(String source) {
    List<String> lines = source.lines().toList();
    return IntStream.range(0, lines.size())
        .mapToObj(i -> (i + 1) + "  " + lines.get(i))
        .collect(Collectors.joining("\n"));
  }

  private static Path repositoryRoot() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.exists(d.resolve("README.md"))
          && Files.isDirectory(d.resolve("docs"))
          && Files.exists(d.resolve("dyno-core"))) {
        return d;
      }
    }
    throw new IllegalStateException(
        "no README.md and docs/ above " + Path.of("").toAbsolutePath());
  }
}
