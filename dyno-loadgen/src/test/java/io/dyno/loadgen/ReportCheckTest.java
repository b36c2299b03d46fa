package io.dyno.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The report checker's verdicts on rendered DOMs and JSON files (the browser side is in BenchReportBrowserTest). */
class ReportCheckTest {
  private static final String RENDERED =
      "<div id=\"render-status\" data-charts=\"4\" data-points=\"42\">rendered 4 charts, 42 data points (ok)</div>"
          + "<svg id=\"throughput\" class=\"chart\" data-points=\"10\"><polyline points=\"1,2 3,4\"></polyline></svg>"
          + "<svg id=\"latency\" class=\"chart\" data-points=\"20\"></svg>"
          + "<svg id=\"borrow\" class=\"chart\" data-points=\"6\"></svg>"
          + "<svg id=\"nodes\" class=\"chart\" data-points=\"6\"></svg>";

  @Test
  void aPageWithEveryChartDrawnPasses() {
    ReportCheck.Result r = ReportCheck.checkDom("<html><body>" + RENDERED + "</body></html>");
    assertThat(r.problems()).isEmpty();
    assertThat(r.charts()).isEqualTo(4);
    assertThat(r.points()).isEqualTo(42);
    assertThat(r.chartPoints())
        .containsEntry("throughput", 10)
        .containsEntry("latency", 20)
        .containsEntry("nodes", 6);
    assertThat(r.describe()).startsWith("ok: rendered 4 charts, 42 data points");
  }

  @Test
  void theUnrenderedTemplateFailsWithNoChartsAndNoPoints() {
    ReportCheck.Result r = ReportCheck.checkDom(
        "<div id=\"render-status\" data-charts=\"0\" data-points=\"0\">charts not rendered (is JavaScript on?)</div>");
    assertThat(r.ok()).isFalse();
    assertThat(r.problems())
        .contains(
            "rendered 0 charts, expected at least 4",
            "the charts have no data points",
            "chart \"throughput\" is not in the page");
    assertThat(r.describe()).startsWith("FAILED: charts not rendered");
  }

  @Test
  void anEmptyChartOrAScriptErrorFails() {
    String emptyNodes = RENDERED.replace(
        "id=\"nodes\" class=\"chart\" data-points=\"6\"",
        "id=\"nodes\" class=\"chart\" data-points=\"0\"");
    assertThat(ReportCheck.checkDom(emptyNodes).problems())
        .containsExactly("chart \"nodes\" is empty");
    String error = RENDERED.replace(
        "data-points=\"42\"", "data-points=\"42\" data-error=\"TypeError: x is undefined\"");
    assertThat(ReportCheck.checkDom(error).problems())
        .containsExactly("the page's script failed: TypeError: x is undefined");
  }

  @Test
  void aPageThatDidNotLoadFailsAndShowsWhatCameBack() {
    ReportCheck.Result r = ReportCheck.checkDom("");
    assertThat(r.charts()).isEqualTo(-1);
    assertThat(r.problems()).singleElement().asString().startsWith("the page did not load");
  }

  @Test
  void missingOrEmptyJsonReportsAreNamed() throws Exception {
    Path dir = Files.createTempDirectory("report-check");
    Path missing = dir.resolve("none.json");
    assertThat(ReportCheck.checkJson(missing))
        .containsExactly("JSON report " + missing + " is missing");

    Path noSamples = dir.resolve("nosamples.json");
    Files.writeString(
        noSamples, "{\"runs\":[{\"driver\":\"dyno\",\"reads\":0,\"writes\":0,\"samples\":[]}]}");
    assertThat(ReportCheck.checkJson(noSamples))
        .containsExactly(
            "JSON report " + noSamples + ": run dyno has no samples",
            "JSON report " + noSamples + ": run dyno did no operation",
            "JSON report " + noSamples + ": run dyno has no per-node counts");

    Path good = dir.resolve("good.json");
    String nodes =
        "\"nodes\":[{\"node\":\"n1\",\"clientRequests\":6,\"serverRequests\":\"n/a (unknown)\","
            + "\"serverForwarded\":\"n/a (unknown)\",\"backendServed\":\"n/a (unknown)\"}]";
    Files.writeString(
        good,
        "{\"runs\":[{\"driver\":\"dyno\",\"reads\":5,\"writes\":1,\"samples\":[{\"t\":1}]," + nodes
            + "}]}");
    assertThat(ReportCheck.checkJson(good)).isEmpty();

    // The old sentinel for "not measured" is refused: a table would print it as if it were a count.
    Path sentinel = dir.resolve("sentinel.json");
    Files.writeString(sentinel, Files.readString(good).replace("\"n/a (unknown)\"", "-1"));
    assertThat(ReportCheck.checkJson(sentinel))
        .hasSize(3)
        .first()
        .asString()
        .endsWith("node n1: serverRequests is -1 (expected a count >= 0 or \"n/a (reason)\")");

    Path html = dir.resolve("page.html");
    Files.writeString(html, "<html><script src=\"https://cdn.example/x.js\"></script></html>");
    assertThat(ReportCheck.checkSelfContained(html))
        .singleElement()
        .asString()
        .contains("loads an external resource");
  }
}
