package io.dyno.loadgen.bench;

import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;

/** Writes plain Java values (maps, collections, records, strings, numbers, booleans) as JSON. */
final class JsonOut {
  private JsonOut() {}

  static String write(Object v) {
    StringBuilder sb = new StringBuilder();
    write(sb, v);
    return sb.toString();
  }

  static void write(StringBuilder sb, Object v) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof String s) {
      string(sb, s);
    } else if (v instanceof Double d) {
      sb.append(
          d.isNaN() || d.isInfinite()
              ? "null"
              : (d == Math.rint(d) && Math.abs(d) < 1e15
                  ? Long.toString(d.longValue())
                  : String.format(Locale.ROOT, "%.4f", d)));
    } else if (v instanceof Number || v instanceof Boolean) {
      sb.append(v);
    } else if (v instanceof Map<?, ?> m) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!first) sb.append(',');
        first = false;
        string(sb, String.valueOf(e.getKey()));
        sb.append(':');
        write(sb, e.getValue());
      }
      sb.append('}');
    } else if (v instanceof Collection<?> c) {
      sb.append('[');
      boolean first = true;
      for (Object o : c) {
        if (!first) sb.append(',');
        first = false;
        write(sb, o);
      }
      sb.append(']');
    } else if (v instanceof Count c) {
      if (c.available()) sb.append(c.value());
      else string(sb, c.toString()); // "n/a (reason)"
    } else if (v instanceof ServerCpu.Use u) {
      write(sb, u.asJson());
    } else if (v instanceof ClientCpu.Use u) {
      write(sb, u.asJson());
    } else if (v instanceof Record r) {
      sb.append('{');
      boolean first = true;
      for (RecordComponent rc : r.getClass().getRecordComponents()) {
        if (!first) sb.append(',');
        first = false;
        string(sb, rc.getName());
        sb.append(':');
        try {
          write(sb, rc.getAccessor().invoke(r));
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException(
              "cannot read " + rc.getName() + " of " + r.getClass().getSimpleName(), e);
        }
      }
      sb.append('}');
    } else if (v instanceof Enum<?> e) {
      string(sb, e.name());
    } else {
      string(sb, v.toString());
    }
  }

  private static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        case '<' ->
          sb.append("\\u003c"); // keeps "</script>" out of the HTML page that embeds this JSON
        default -> {
          if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
          else sb.append(c);
        }
      }
    }
    sb.append('"');
  }
}
