package io.dyno.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.loadgen.bench.BenchConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

class BenchOptionsTest {

  @Test
  void everyOptionHasItsOwnDescriptionWithItsDefault() {
    List<OptionSpec> shown =
        BenchOptions.spec().options().stream().filter(o -> !o.hidden()).toList();
    Set<String> seen = new HashSet<>();
    for (OptionSpec o : shown) {
      String text = String.join(" ", o.description());
      assertThat(text).as(o.longestName()).isNotBlank().doesNotStartWith("bench setting");
      assertThat(seen.add(text)).as(o.longestName() + " shares its description").isTrue();
    }
    // Every option that takes a value says what happens without it (the two flags take none).
    BenchOptionCatalog.options().values().stream()
        .filter(o -> !o.label().isEmpty())
        .forEach(o -> assertThat(o.help()).as("--" + o.name()).contains("default"));
    assertThat(shown).hasSize(BenchOptionCatalog.options().size() + 1); // and --help
  }

  @Test
  void everyBenchSettingIsAnOption() {
    List<String> settings =
        new ArrayList<>(BenchConfig.builder().build().asMap().keySet());
    settings.add("pipeline");
    Set<String> described = new HashSet<>();
    BenchOptionCatalog.options().values().forEach(o -> described.add(o.setting()));
    assertThat(described).containsAll(settings);
  }

  @Test
  void canonicalNamesAreKebabCase() {
    assertThat(BenchOptionCatalog.options().keySet())
        .allMatch(n -> n.matches("[a-z0-9]+(-[a-z0-9]+)*"), "kebab-case");
    assertThat(BenchOptionCatalog.kebab("windowSlidePerSecond"))
        .isEqualTo("window-slide-per-second");
  }

  @Test
  void olderSpellingsMapToTheCanonicalOption() {
    assertThat(BenchOptionCatalog.aliases())
        .containsEntry("readRate", "read-rate")
        .containsEntry("valueSize", "value-size")
        .containsEntry("conns", "pool-size")
        .containsEntry("server", "target")
        .containsEntry("muxWrites", "mux-writes");
    for (Map.Entry<String, String> a : BenchOptionCatalog.aliases().entrySet()) {
      BenchOptionCatalog.Option o = BenchOptionCatalog.options().get(a.getValue());
      assertThat(o).as("--" + a.getKey() + " points at --" + a.getValue()).isNotNull();
      BenchOptions.Parsed old = parse("--" + a.getKey(), "7");
      BenchOptions.Parsed canonical = parse("--" + a.getValue(), "7");
      assertThat(old).as("--" + a.getKey()).isEqualTo(canonical);
      if (o.setting() != null)
        assertThat(old.settings()).containsExactly(Map.entry(o.setting(), "7"));
      else assertThat(old.tool()).containsExactly(Map.entry(a.getValue(), "7"));
    }
    // Single-word settings have no second spelling; they parse under their setting name.
    assertThat(parse("--keys", "5k", "--read-rate=100").settings())
        .containsExactly(Map.entry("keys", "5k"), Map.entry("readRate", "100"));
  }

  @Test
  void optionsOfOneSectionMayComeAnywhere() {
    BenchOptions.Parsed p = parse(
        "--keys",
        "5k",
        "--target",
        "companion",
        "--readPercent",
        "70",
        "--duration",
        "1s",
        "--readers",
        "2",
        "--coordinate",
        "--control-port",
        "0");
    assertThat(p.settings())
        .containsExactly(
            Map.entry("keys", "5k"),
            Map.entry("readPercent", "70"),
            Map.entry("duration", "1s"),
            Map.entry("readers", "2"));
    assertThat(p.tool())
        .containsExactly(Map.entry("target", "companion"), Map.entry("control-port", "0"));
    assertThat(p.coordinate()).isTrue();
    assertThat(p.help()).isFalse();
  }

  @Test
  void anOptionGivenUnderBothSpellingsIsRefused() {
    assertThatThrownBy(() -> parse("--readRate", "1", "--read-rate", "2"))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessage("option --read-rate is given twice (as --readRate and as --read-rate)");
    assertThatThrownBy(() -> parse("--read-rate", "1", "--read-rate", "2"))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessage("option --read-rate is given twice");
    assertThatThrownBy(() -> parse("--colour", "red"))
        .isInstanceOf(CommandLine.ParameterException.class);
  }

  @Test
  void helpListsCanonicalNamesOnly() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    assertThat(BenchMain.run(
            new String[] {"--help"}, new PrintStream(buf, true, StandardCharsets.UTF_8)))
        .isZero();
    String help = buf.toString(StandardCharsets.UTF_8);
    BenchOptionCatalog.options().keySet().forEach(n -> assertThat(help).contains("--" + n));
    BenchOptionCatalog.aliases()
        .keySet()
        .forEach(a -> assertThat(help).doesNotContain("--" + a + "="));
    String text = help.replaceAll("\\s+", " "); // descriptions wrap at any space
    assertThat(BenchOptionCatalog.options().get("report-dir").help())
        .contains("(default " + BenchOptionCatalog.DEFAULT_REPORT_DIR);
    assertThat(text)
        .contains("--report-dir=<dir>")
        .contains("--read-rate=<ops/s> GETs per second over all threads; 0 = unlimited")
        .doesNotContain("bench setting (default");
  }

  @Test
  void aBadCommandLineExitsWithTwoAndTheUsage() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = BenchMain.run(
        new String[] {"--conns", "8", "--pool-size", "9"},
        new PrintStream(buf, true, StandardCharsets.UTF_8));
    assertThat(code).isEqualTo(2);
    assertThat(buf.toString(StandardCharsets.UTF_8))
        .startsWith("bench: option --pool-size is given twice")
        .contains("Usage: bench");
  }

  @Test
  void reportsGoOutsideTheRepositoryByDefault() throws Exception {
    Path repo = repositoryRoot();
    Path dir = BenchOptionCatalog.DEFAULT_REPORT_DIR;
    assertThat(dir).isAbsolute();
    assertThat(dir.normalize().startsWith(repo)).as(dir + " inside " + repo).isFalse();

    // A short run without --report-dir writes there (one companion node in memory, no backfill).
    String name = "bench-options-test-" + ProcessHandle.current().pid();
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = BenchMain.run(
        new String[] {
          "--target",
          "companion",
          "--backend",
          "memory",
          "--racks",
          "1",
          "--nodes-per-rack",
          "1",
          "--duration",
          "1s",
          "--keys",
          "100",
          "--readers",
          "1",
          "--writers",
          "1",
          "--backfill",
          "false",
          "--report-name",
          name
        },
        new PrintStream(buf, true, StandardCharsets.UTF_8));
    Path json = dir.resolve(name + ".json");
    Path html = dir.resolve(name + ".html");
    try {
      assertThat(code).as(buf.toString(StandardCharsets.UTF_8)).isZero();
      assertThat(json).exists();
      assertThat(html).exists();
      assertThat(buf.toString(StandardCharsets.UTF_8)).contains("report: " + json.toAbsolutePath());
    } finally {
      Files.deleteIfExists(json);
      Files.deleteIfExists(html);
    }
  }

  private static BenchOptions.Parsed parse(String... args) {
    return BenchOptions.parse(new CommandLine(BenchOptions.spec()), args);
  }

  /** The checkout this test runs in: the directory above the module that holds the root pom. */
  private static Path repositoryRoot() throws Exception {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("dyno-loadgen").resolve("pom.xml"))
          && Files.exists(p.resolve("pom.xml"))) {
        return p.toRealPath();
      }
    }
    throw new IllegalStateException("no checkout above " + Path.of("").toAbsolutePath());
  }
}
