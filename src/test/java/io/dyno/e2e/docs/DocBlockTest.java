package io.dyno.e2e.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a page's block becomes Java source: its own imports only, and page lines for errors. */
class DocBlockTest {
  @TempDir
  Path root;

  @Test
  void aFragmentKeepsItsImportsAboveTheClassAndGetsNoOthers() throws IOException {
    DocBlock b = only(
        "<!-- given: DynoJedisClient dyno; -->",
        "```java",
        "import io.dyno.jedis.DynoJedisClient;",
        "// a comment among the imports",
        "import java.time.Duration;",
        "",
        "Duration d = Duration.ofSeconds(1);",
        "```");
    assertThat(b.isCompilationUnit()).isFalse();
    assertThat(b.importLines()).isEqualTo(3);
    assertThat(b.source().lines().toList())
        .containsExactly(
            "import io.dyno.jedis.DynoJedisClient;",
            "// a comment among the imports",
            "import java.time.Duration;",
            "class DocBlock_docs_page_md_2 {",
            "DynoJedisClient dyno;",
            "void example() throws Exception {",
            "",
            "Duration d = Duration.ofSeconds(1);",
            "}",
            "}");
    assertThat(b.pageLine(3)).as("the second import").isEqualTo(5);
    assertThat(b.pageLine(8)).as("the statement").isEqualTo(7);
  }

  @Test
  void aFragmentWithoutImportsIsCompiledWithoutAny() throws IOException {
    DocBlock b = only("```java", "Duration d = Duration.ofSeconds(1);", "```");
    assertThat(b.importLines()).isZero();
    assertThat(b.source()).doesNotContain("import");
    assertThat(b.pageLine(3)).as("the statement, after class and method lines").isEqualTo(2);
  }

  @Test
  void aClassIsCompiledExactlyAsWritten() throws IOException {
    DocBlock b = only("```java", "public class Orders {", "}", "```");
    assertThat(b.isCompilationUnit()).isTrue();
    assertThat(b.source()).isEqualTo("public class Orders {\n}\n");
    assertThat(b.pageLine(2)).isEqualTo(3);
  }

  @Test
  void wildcardImportsAreNamed() throws IOException {
    DocBlock b = only(
        "```java",
        "import io.dyno.core.*;",
        "import static org.junit.jupiter.api.Assertions.*;",
        "import java.time.Duration;",
        "```");
    assertThat(b.wildcardImports())
        .containsExactly(
            "import io.dyno.core.*;", "import static org.junit.jupiter.api.Assertions.*;");
  }

  private DocBlock only(String... pageLines) throws IOException {
    Path page = Files.createDirectories(root.resolve("docs")).resolve("page.md");
    Files.write(page, List.of(pageLines));
    List<DocBlock> blocks = DocBlock.read(root, page);
    assertThat(blocks).hasSize(1);
    return blocks.get(0);
  }
}
