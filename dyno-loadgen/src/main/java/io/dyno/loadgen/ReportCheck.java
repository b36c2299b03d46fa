package io.dyno.loadgen;

import io.dyno.loadgen.bench.JsonIn;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a bench report without screenshots: the JSON exists and holds samples and operations, the
 * HTML is self-contained, and headless Chromium's rendered DOM shows every chart drawn with data.
 * Used by {@code BenchReportBrowserTest} and by CI ({@code scripts/loadgen.sh check-report <dir> <name>}).
 *
 * <p>Exit codes of {@link #main}: 0 ok, 1 the report is missing or its charts are empty, 2 usage.
 */
public final class ReportCheck {
  /** Charts the page must draw with at least one data point (SVG ids in the report template). */
  public static final List<String> REQUIRED_CHARTS = List.of("throughput", "latency", "nodes");
  /** Per-node counts every run must carry, each a number or "n/a (reason)" (never a sentinel such as -1). */
  public static final List<String> NODE_COUNTS =
      List.of("clientRequests", "serverRequests", "serverForwarded", "backendServed");
  /** Throughput, latency, borrow delay, requests per node. */
  public static final int MIN_CHARTS = 4;

  private static final Pattern STATUS = Pattern.compile(
      "id=\"render-status\" data-charts=\"(\\d+)\" data-points=\"(\\d+)\"[^>]*>([^<]*)<");
  private static final Pattern EXTERNAL =
      Pattern.compile("<(script|link|img|iframe)[^>]*\\s(src|href)=");

  /**
   * What the rendered page showed. {@code charts}/{@code points} are -1 when the page did not get
   * as far as its render status; {@code problems} is empty when everything is fine.
   */
  public record Result(
      int charts,
      int points,
      Map<String, Integer> chartPoints,
      String statusText,
      List<String> problems) {
    public boolean ok() {
      return problems.isEmpty();
    }

    /** One line for logs, e.g. "ok: rendered 4 charts, 252 data points (throughput 60, latency 120, nodes 12)". */
    public String describe() {
      StringBuilder sb = new StringBuilder(ok() ? "ok: " : "FAILED: ");
      sb.append(statusText.isEmpty() ? "no render status" : statusText);
      if (!chartPoints.isEmpty()) {
        List<String> parts = new ArrayList<>();
        chartPoints.forEach((k, v) -> parts.add(k + " " + v));
        sb.append(" (points per chart: ").append(String.join(", ", parts)).append(')');
      }
      if (!ok()) sb.append("; ").append(String.join("; ", problems));
      return sb.toString();
    }
  }

  private ReportCheck() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println(
          "usage: ReportCheck <report dir> <report name>   (checks <dir>/<name>.json and <dir>/<name>.html)");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    String name = args[1];
    List<String> problems = checkJson(dir.resolve(name + ".json"));
    Path html = dir.resolve(name + ".html");
    Result r = null;
    if (!Files.isRegularFile(html)) {
      problems.add("HTML report " + html + " is missing");
    } else {
      problems.addAll(checkSelfContained(html));
      String chromium = findChromium();
      if (chromium == null) {
        problems.add("no chromium on PATH to open " + html
            + " (Debian package: chromium; scripts/setup-test-env.sh installs it)");
      } else {
        r = checkInBrowser(chromium, html);
        problems.addAll(r.problems());
      }
    }
    if (problems.isEmpty()) {
      System.out.println(
          "report check: " + dir.resolve(name + ".{json,html}") + " " + r.describe());
      System.exit(0);
    }
    System.out.println("report check FAILED for " + dir.resolve(name + ".{json,html}") + ":");
    problems.forEach(p -> System.out.println("  - " + p));
    System.exit(1);
  }

  /**
   * The JSON report exists, parses, and every run has samples, at least one operation, and per-node
   * counts that are numbers or "n/a (reason)".
   */
  public static List<String> checkJson(Path json) {
    List<String> problems = new ArrayList<>();
    if (!Files.isRegularFile(json)) {
      problems.add("JSON report " + json + " is missing");
      return problems;
    }
    Map<String, Object> doc;
    try {
      doc = JsonIn.parseObject(Files.readString(json));
    } catch (IOException | RuntimeException e) {
      problems.add("JSON report " + json + " does not parse: " + e.getMessage());
      return problems;
    }
    if (!(doc.get("runs") instanceof List<?> runs) || runs.isEmpty()) {
      problems.add("JSON report " + json + " has no runs");
      return problems;
    }
    for (Object o : runs) {
      if (!(o instanceof Map<?, ?> run)) {
        problems.add("JSON report " + json + ": a run is not an object");
        continue;
      }
      Object driver = run.get("driver");
      if (!(run.get("samples") instanceof List<?> samples) || samples.isEmpty()) {
        problems.add("JSON report " + json + ": run " + driver + " has no samples");
      }
      long ops = number(run.get("reads")) + number(run.get("writes"));
      if (ops <= 0) problems.add("JSON report " + json + ": run " + driver + " did no operation");
      if (!(run.get("nodes") instanceof List<?> nodes) || nodes.isEmpty()) {
        problems.add("JSON report " + json + ": run " + driver + " has no per-node counts");
      } else {
        for (Object n : nodes) {
          if (!(n instanceof Map<?, ?> node)) continue;
          for (String count : NODE_COUNTS) {
            Object v = node.get(count);
            boolean ok = (v instanceof Number x && x.longValue() >= 0)
                || (v instanceof String t && t.startsWith("n/a ("));
            if (!ok) {
              problems.add("JSON report " + json + ": run " + driver + ", node " + node.get("node")
                  + ": " + count + " is " + v + " (expected a count >= 0 or \"n/a (reason)\")");
            }
          }
        }
      }
    }
    return problems;
  }

  /** Nothing is loaded from elsewhere (CI machines may have no network). */
  public static List<String> checkSelfContained(Path html) throws IOException {
    Matcher m = EXTERNAL.matcher(Files.readString(html));
    return m.find()
        ? new ArrayList<>(
            List.of("HTML report " + html + " loads an external resource: " + m.group()))
        : new ArrayList<>();
  }

  /** Opens the page in headless Chromium and checks the rendered DOM. */
  public static Result checkInBrowser(String chromium, Path html)
      throws IOException, InterruptedException {
    return checkDom(dumpDom(chromium, html));
  }

  /** Checks a rendered DOM: render status present, no render error, enough charts, each required chart with points. */
  public static Result checkDom(String dom) {
    List<String> problems = new ArrayList<>();
    Map<String, Integer> chartPoints = new LinkedHashMap<>();
    Matcher status = STATUS.matcher(dom);
    if (!status.find()) {
      problems.add("the page did not load or has no render status (DOM starts: "
          + (dom.length() > 300 ? dom.substring(0, 300) + "..." : dom).replaceAll("\\s+", " ")
          + ")");
      return new Result(-1, -1, chartPoints, "", problems);
    }
    int charts = Integer.parseInt(status.group(1));
    int points = Integer.parseInt(status.group(2));
    String text = status.group(3).trim();
    Matcher err = Pattern.compile("data-error=\"([^\"]*)\"").matcher(dom);
    if (err.find()) problems.add("the page's script failed: " + err.group(1));
    if (charts < MIN_CHARTS)
      problems.add("rendered " + charts + " charts, expected at least " + MIN_CHARTS);
    if (points <= 0) problems.add("the charts have no data points");
    for (String chart : REQUIRED_CHARTS) {
      Matcher m = Pattern.compile("<svg id=\"" + chart + "\"[^>]*data-points=\"(\\d+)\"")
          .matcher(dom);
      if (!m.find()) {
        problems.add("chart \"" + chart + "\" is not in the page");
        continue;
      }
      int n = Integer.parseInt(m.group(1));
      chartPoints.put(chart, n);
      if (n <= 0) problems.add("chart \"" + chart + "\" is empty");
    }
    if (!dom.contains("<polyline points=\""))
      problems.add("no line was drawn (no polyline with points)");
    return new Result(charts, points, chartPoints, text, problems);
  }

  /** The first of chromium, chromium-browser, google-chrome on the PATH, or null. */
  public static String findChromium() {
    String path = System.getenv("PATH");
    if (path == null) return null;
    for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
      for (String dir : path.split(File.pathSeparator)) {
        if (new File(dir, name).canExecute()) return name;
      }
    }
    return null;
  }

  /** Runs headless Chromium on the page and returns the DOM after its scripts ran. */
  public static String dumpDom(String chromium, Path html)
      throws IOException, InterruptedException {
    Path profile = Files.createTempDirectory("chromium-profile");
    Path dom = Files.createTempFile("chromium-dom", ".html");
    try {
      // Output to a file, so a hanging chromium still hits the timeout (a pipe read would block).
      Process p = new ProcessBuilder(
              chromium,
              "--headless",
              "--no-sandbox",
              "--disable-gpu",
              "--disable-quic",
              "--no-first-run",
              "--disable-background-networking",
              "--disable-component-update",
              "--disable-sync",
              "--user-data-dir=" + profile,
              "--dump-dom",
              html.toAbsolutePath().toUri().toString())
          .redirectOutput(dom.toFile())
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(chromium + " did not finish within 60 s on " + html);
      }
      return Files.readString(dom, StandardCharsets.UTF_8);
    } finally {
      Files.deleteIfExists(dom);
      deleteTree(profile);
    }
  }

  private static long number(Object o) {
    return o instanceof Number n ? n.longValue() : 0;
  }

  private static void deleteTree(Path dir) {
    try (var files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException ignored) {
      // a temp profile left behind is harmless
    }
  }
}
