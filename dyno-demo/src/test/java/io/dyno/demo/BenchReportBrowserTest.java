package io.dyno.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.dyno.core.internal.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A short bench run against the embedded companion cluster (the 60-second run is the same command
 * with --duration 60s, see the report) writes JSON and HTML reports; the HTML is opened in headless
 * Chromium, whose rendered DOM must show every chart drawn with data points.
 */
class BenchReportBrowserTest {

  @Test
  void benchRunWritesJsonAndHtmlReportsWhoseChartsRenderInHeadlessChromium() throws Exception {
    Path dir = Files.createTempDirectory("bench-report");
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int code = BenchMain.run(new String[] {"--backend", "memory", "--driver", "dyno", "--duration", "8s", "--keys", "2000",
        "--valueSize", "256", "--readers", "0", "--writers", "0", "--threads", "4", "--readPercent", "80",
        "--report-dir", dir.toString(), "--report-name", "short"}, new PrintStream(buf, true, StandardCharsets.UTF_8));
    String output = buf.toString(StandardCharsets.UTF_8);
    assertThat(code).isZero();
    assertThat(output).containsPattern("\\[dyno\\] t=\\d+s ops/s=\\d+");

    Map<String, Object> json = Json.parseObject(Files.readString(dir.resolve("short.json")));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> runs = (List<Map<String, Object>>) json.get("runs");
    assertThat(runs).hasSize(1);
    assertThat((List<?>) runs.get(0).get("samples")).hasSizeGreaterThanOrEqualTo(6);
    assertThat(((Number) runs.get(0).get("reads")).longValue()).isPositive();
    assertThat((List<?>) runs.get(0).get("nodes")).hasSize(6);

    Path html = dir.resolve("short.html");
    // Self-contained: nothing loaded from elsewhere (the machine may have no network).
    assertThat(Files.readString(html)).doesNotContainPattern("<(script|link|img|iframe)[^>]*\\s(src|href)=");

    String chromium = ChromiumCheck.find();
    assumeTrue(chromium != null, "SKIPPED browser check: no chromium on PATH (Debian package: apt-get install -y chromium)");
    String dom = ChromiumCheck.dumpDom(chromium, html);
    Matcher status = Pattern.compile("id=\"render-status\" data-charts=\"(\\d+)\" data-points=\"(\\d+)\"").matcher(dom);
    assertThat(status.find()).as("render status in the rendered DOM:\n%s", dom.length() > 2000 ? dom.substring(0, 2000) : dom).isTrue();
    assertThat(Integer.parseInt(status.group(1))).isGreaterThanOrEqualTo(4); // throughput, latency, borrow, requests per node
    assertThat(Integer.parseInt(status.group(2))).isPositive();
    for (String chart : List.of("throughput", "latency", "nodes")) {
      Matcher m = Pattern.compile("<svg id=\"" + chart + "\"[^>]*data-points=\"(\\d+)\"").matcher(dom);
      assertThat(m.find()).as("chart %s in the DOM", chart).isTrue();
      assertThat(Integer.parseInt(m.group(1))).as("points of chart %s", chart).isPositive();
    }
    assertThat(dom).contains("<polyline points=\"").doesNotContain("data-error=");
  }

  /** Finds and drives headless Chromium. */
  static final class ChromiumCheck {
    static String find() {
      for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
        if (RedisServerProcess.onPath(name)) return name;
      }
      return null;
    }

    static String dumpDom(String exe, Path html) throws Exception {
      Path profile = Files.createTempDirectory("chromium-profile");
      Process p = new ProcessBuilder(exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--user-data-dir=" + profile, "--dump-dom", html.toUri().toString())
          .redirectError(ProcessBuilder.Redirect.DISCARD).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("chromium did not finish within 60 s");
      }
      return new String(out, StandardCharsets.UTF_8);
    }
  }
}
