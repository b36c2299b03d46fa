package io.dyno.loadgen.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Whether the Dyno drivers trace their calls with OpenTelemetry (dyno-opentelemetry's listener over
 * the OpenTelemetry SDK), and how. The spans never leave the process: the point is the cost on the
 * client's side, not an exporter's I/O.
 */
public enum TracingMode {
  /** No tracing: the client has no listener. */
  OFF("no listener: the client as an application without tracing runs it"),
  /** Every call is a root span, always sampled, ended and counted, then dropped. */
  SAMPLED("every call a root span, always-on sampler, each span ended, counted and dropped"),
  /** The sampler drops every span: each call costs one non-recording span. */
  DROPPED("the listener installed, an always-off sampler: one non-recording span per call"),
  /**
   * As {@link #SAMPLED}, but each operation (a GET, a SET, a pipeline) runs inside an application span
   * the bench makes current, so Dyno's spans take it as their parent. The application span's own cost
   * is in the figures too.
   */
  NESTED(
      "as sampled, each operation inside a sampled application span the bench makes current, the parent "
          + "of Dyno's span; that span's cost counts too");

  private final String meaning;

  TracingMode(String meaning) {
    this.meaning = meaning;
  }

  /** The name as written on the command line and in reports ({@code sampled}). */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** What the mode does, in words (for --help and the report). */
  public String meaning() {
    return meaning;
  }

  /** Parses {@code off}, {@code sampled}, {@code dropped} or {@code nested} (any case); names the setting when wrong. */
  public static TracingMode parse(String text) {
    String t = text == null ? "" : text.trim();
    for (TracingMode m : values()) {
      if (m.label().equalsIgnoreCase(t)) return m;
    }
    throw new IllegalArgumentException("setting tracing: \"" + text + "\" is not one of "
        + Arrays.stream(values()).map(TracingMode::label).collect(Collectors.joining(", ")));
  }
}
