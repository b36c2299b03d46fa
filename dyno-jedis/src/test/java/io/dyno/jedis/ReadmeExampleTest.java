package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first example, as a newcomer copies it: the first {@code java} block under "Using
 * Dyno" is compiled as written (imports included) and its {@code main} run against a companion
 * cluster of 3 racks x 2 nodes, whose {@code /cluster_describe} URL is its argument.
 */
class ReadmeExampleTest {
  /** On free ports, as the companion's command line starts it by default. */
  @Test
  void theFirstExampleCompilesAndRunsAgainstACompanionCluster(@TempDir Path dir) throws Exception {
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(3)
            .nodesPerRack(2)
            .backend(Backend.MEMORY)
            .start();
        URLClassLoader loader = compileExample(dir)) {
      String url = "http://127.0.0.1:" + cluster.nodes().get(0).adminPort() + "/cluster_describe";
      Method main = loader.loadClass("Orders").getMethod("main", String[].class);
      String printed = runCapturingOutput(() -> main.invoke(null, (Object) new String[] {url}));
      assertThat(printed.lines().toList())
          .containsSubsequence("ada", "[ada, null]", "ada", "1")
          .contains("user:1", "user:2");
    }
  }

  /** Without a URL the example names both ways to give one, and reaches no cluster. */
  @Test
  void withoutAUrlTheExampleSaysHowToGiveOne(@TempDir Path dir) throws Exception {
    assumeTrue(
        System.getenv("DYNO_CLUSTER_DESCRIBE_URL") == null,
        "DYNO_CLUSTER_DESCRIBE_URL is set in this environment");
    try (URLClassLoader loader = compileExample(dir)) {
      Method main = loader.loadClass("Orders").getMethod("main", String[].class);
      assertThatThrownBy(() -> main.invoke(null, (Object) new String[0]))
          .isInstanceOf(InvocationTargetException.class)
          .cause()
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("first argument")
          .hasMessageContaining("DYNO_CLUSTER_DESCRIBE_URL");
    }
  }

  /** The first {@code java} block under "Using Dyno", compiled as written into {@code dir}. */
  private URLClassLoader compileExample(Path dir) throws IOException {
    String source = firstJavaBlockUnder("## Using Dyno");
    Path file = dir.resolve("Orders.java");
    Files.writeString(file, source);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream errors = new ByteArrayOutputStream();
    int rc = javac.run(
        null,
        errors,
        errors,
        "-d",
        dir.toString(),
        "-classpath",
        System.getProperty("java.class.path"),
        file.toString());
    assertThat(rc)
        .as("javac on the README's example:\n" + errors.toString(StandardCharsets.UTF_8))
        .isZero();
    return new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader());
  }

  private interface Body {
    void run() throws Exception;
  }

  /** The example prints its results; this test is the only writer to System.out while it runs. */
  private static String runCapturingOutput(Body body) throws Exception {
    PrintStream original = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      body.run();
    } finally {
      System.setOut(original);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static String firstJavaBlockUnder(String heading) throws IOException {
    List<String> lines = Files.readAllLines(readme());
    int at = lines.indexOf(heading);
    assertThat(at).as("the README has the heading " + heading).isNotNegative();
    int start = at;
    while (!lines.get(start).equals("```java")) {
      start++;
    }
    int end = start + 1;
    while (!lines.get(end).equals("```")) {
      end++;
    }
    return String.join("\n", lines.subList(start + 1, end)) + "\n";
  }

  private static Path readme() {
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.exists(d.resolve("README.md")) && Files.exists(d.resolve("dyno-jedis"))) {
        return d.resolve("README.md");
      }
    }
    throw new IllegalStateException(
        "no README.md beside dyno-jedis above " + Path.of("").toAbsolutePath());
  }
}
