package io.dyno.loadgen.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dyno.loadgen.BenchMain;
import io.dyno.loadgen.ReportCheck;
import io.dyno.loadgen.bench.JsonIn;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console page in headless Chromium drives a real endless run (BenchMain, Dyno against the
 * embedded companion cluster): typing a read rate into the page and pressing its button changes
 * the load, seen in the page's own figures within 2 s; the page's Stop ends the run and the report
 * is written.
 */
class ConsoleBrowserTest {
  private static final Pattern CONSOLE = Pattern.compile("console: (http://127\\.0\\.0\\.1:\\d+)/");

  @Test
  void aKnobChangedOnThePageChangesTheLoadAndStopWritesTheReport(@TempDir Path dir)
      throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(
        new OutputStream() {
          @Override
          public synchronized void write(int b) {
            buf.write(b);
          }
        },
        true,
        StandardCharsets.UTF_8);
    CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> {
      try {
        return BenchMain.run(
            new String[] {
              "--target",
              "companion",
              "--backend",
              "memory",
              "--driver",
              "dyno",
              "--keys",
              "2000",
              "--valueSize",
              "1024",
              "--readers",
              "2",
              "--writers",
              "1",
              "--readRate",
              "200",
              "--writeRate",
              "50",
              "--control-port",
              "0",
              "--report-dir",
              dir.toString(),
              "--report-name",
              "console"
            },
            out);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    String url = await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              Matcher m = CONSOLE.matcher(buf.toString(StandardCharsets.UTF_8));
              return m.find() ? m.group(1) : null;
            },
            u -> u != null);

    try (HeadlessChromium page = HeadlessChromium.open(url + "/")) {
      // Steady at the starting read limit, as the page shows it.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> number(page, "fig-reads"), r -> r >= 120 && r <= 300);
      assertThat(page.eval("document.getElementById('knob-readRate').value")).isEqualTo("200");
      assertThat(((Number) page.eval(
                  "+document.getElementById('svg-c-throughput').getAttribute('data-points')"))
              .intValue())
          .isPositive();

      long t0 = System.nanoTime();
      page.eval("(function(){var i=document.getElementById('knob-readRate'); i.value='1000';"
          + " document.getElementById('set-readRate').click(); return true;})()");
      await()
          .atMost(Duration.ofSeconds(2))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> number(page, "fig-reads"), r -> r >= 500);
      Duration seen = HeadlessChromium.since(t0);
      assertThat(seen).isLessThan(Duration.ofSeconds(2));
      assertThat(page.eval("document.getElementById('fig-readlimit').textContent"))
          .isIn("1000", "200");

      page.eval("document.getElementById('btn-stop').click()");
      assertThat(exit.get(60, TimeUnit.SECONDS)).isZero();
    }
    Path json = dir.resolve("console.json");
    assertThat(json).exists();
    assertThat(dir.resolve("console.html")).exists();
    assertThat(ReportCheck.checkJson(json)).isEmpty();
    Map<String, Object> report = JsonIn.parseObject(Files.readString(json));
    List<?> events = (List<?>) report.get("events");
    assertThat(events.toString()).contains("readRate=1000").contains("run stopped");
    assertThat(buf.toString(StandardCharsets.UTF_8)).contains("endless run");
  }

  private static double number(HeadlessChromium page, String id) throws Exception {
    // -1 until the page has drawn the element (the first polls may run before the page script did)
    Object v = page.eval("(function(){var e=document.getElementById('" + id
        + "'); return e ? e.textContent : '';})()");
    try {
      return Double.parseDouble(String.valueOf(v));
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
