package io.dyno.loadgen.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A bench report: one or more runs (several when drivers are compared), an optional ratio table
 * and auto-tune outcome, written as JSON and as a self-contained HTML page whose inline script
 * draws the charts as SVG (no network needed to view it).
 */
public final class Report {
  private final String title;
  private final List<BenchResult> runs = new ArrayList<>();
  private final Map<String, Object> extra = new LinkedHashMap<>();

  public Report(String title) {
    this.title = title;
  }

  public Report add(BenchResult r) {
    runs.add(r);
    return this;
  }

  /** Adds a named section to the report (e.g. "comparison", "autotune", "method"). */
  public Report put(String name, Object value) {
    extra.put(name, value);
    return this;
  }

  public String title() {
    return title;
  }

  /** The named sections added with {@link #put}. */
  public Map<String, Object> extra() {
    return extra;
  }

  public List<BenchResult> runs() {
    return runs;
  }

  public Map<String, Object> asMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("title", title);
    m.put("generatedAtMillis", System.currentTimeMillis());
    m.put("runs", runs);
    m.putAll(extra);
    return m;
  }

  public String toJson() {
    return JsonOut.write(asMap());
  }

  public String toHtml() {
    String template;
    try (InputStream in = Report.class.getResourceAsStream("report-template.html")) {
      if (in == null) {
        throw new IllegalStateException("report-template.html missing from the classpath");
      }
      template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read report-template.html", e);
    }
    return template.replace("__TITLE__", escapeHtml(title)).replace("__DATA__", toJson());
  }

  /** Writes {@code <base>.json} and {@code <base>.html} into {@code dir}; returns the two paths. */
  public List<Path> write(Path dir, String base) throws IOException {
    Files.createDirectories(dir);
    Path json = dir.resolve(base + ".json");
    Path html = dir.resolve(base + ".html");
    Files.writeString(json, toJson(), StandardCharsets.UTF_8);
    Files.writeString(html, toHtml(), StandardCharsets.UTF_8);
    return List.of(json, html);
  }

  static String escapeHtml(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
