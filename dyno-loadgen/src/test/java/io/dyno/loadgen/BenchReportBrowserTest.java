package io.dyno.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.dyno.loadgen.bench.JsonIn;
import io.dyno.loadgen.bench.Report;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A short bench run against the embedded companion cluster writes JSON and HTML reports; the HTML
 * is opened in headless Chromium, whose rendered DOM must show every chart drawn with data points.
 * The 60-second run is a CI step (scripts/test.sh) using the same {@link ReportCheck}.
 */
class BenchReportBrowserTest {

  @Test
  void benchRunWritesJsonAndHtmlReportsWhoseChartsRenderInHeadlessChromium() throws Exception {
    Path dir = Files.createTempDirectory("bench-report");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = BenchMain.run(
        new String[] {
          "--backend",
          "memory",
          "--driver",
          "dyno",
          "--duration",
          "8s",
          "--keys",
          "2000",
          "--valueSize",
          "256",
          "--readers",
          "0",
          "--writers",
          "0",
          "--threads",
          "4",
          "--readPercent",
          "80",
          "--report-dir",
          dir.toString(),
          "--report-name",
          "short"
        },
        new PrintStream(buf, true, StandardCharsets.UTF_8));
    String output = buf.toString(StandardCharsets.UTF_8);
    assertThat(code).isZero();
    assertThat(output).containsPattern("\\[dyno\\] t=\\d+s ops/s=\\d+");

    Map<String, Object> json = JsonIn.parseObject(Files.readString(dir.resolve("short.json")));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> runs = (List<Map<String, Object>>) json.get("runs");
    assertThat(runs).hasSize(1);
    assertThat((List<?>) runs.get(0).get("samples")).hasSizeGreaterThanOrEqualTo(6);
    assertThat(((Number) runs.get(0).get("reads")).longValue()).isPositive();
    assertThat((List<?>) runs.get(0).get("nodes")).hasSize(6);

    assertThat(ReportCheck.checkJson(dir.resolve("short.json"))).isEmpty();

    Path html = dir.resolve("short.html");
    // Self-contained: nothing loaded from elsewhere (the machine may have no network).
    assertThat(ReportCheck.checkSelfContained(html)).isEmpty();

    // CI fails the run when this is skipped (scripts/SurefireSummary.java); setup-test-env installs
    // chromium.
    String chromium = ReportCheck.findChromium();
    assumeTrue(
        chromium != null,
        "SKIPPED browser check: no chromium on PATH (Debian package: apt-get install -y chromium)");
    ReportCheck.Result result = ReportCheck.checkInBrowser(chromium, html);
    assertThat(result.problems()).as(result.describe()).isEmpty();
    assertThat(result.charts()).isGreaterThanOrEqualTo(ReportCheck.MIN_CHARTS);
    assertThat(result.points()).isPositive();
    assertThat(result.chartPoints())
        .containsOnlyKeys(ReportCheck.REQUIRED_CHARTS)
        .allSatisfy((chart, points) ->
            assertThat(points).as("points of chart %s", chart).isPositive());
  }

  @Test
  void aReportWithoutRunsFailsTheBrowserCheckBecauseItsChartsAreEmpty() throws Exception {
    Path dir = Files.createTempDirectory("bench-report-empty");
    new Report("no runs").write(dir, "empty");
    assertThat(ReportCheck.checkJson(dir.resolve("empty.json")))
        .singleElement()
        .asString()
        .contains("has no runs");

    String chromium = ReportCheck.findChromium();
    assumeTrue(
        chromium != null,
        "SKIPPED browser check: no chromium on PATH (Debian package: apt-get install -y chromium)");
    ReportCheck.Result result = ReportCheck.checkInBrowser(chromium, dir.resolve("empty.html"));
    assertThat(result.ok()).as(result.describe()).isFalse();
    assertThat(result.charts()).as("the page loaded and rendered its status").isNotNegative();
    assertThat(result.problems()).anySatisfy(p -> assertThat(p).contains("no data points"));
  }
}
