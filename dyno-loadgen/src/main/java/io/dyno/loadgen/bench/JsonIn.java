package io.dyno.loadgen.bench;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.Strictness;
import com.google.gson.ToNumberPolicy;
import java.util.List;
import java.util.Map;

/**
 * Reads JSON documents (reports, other instances' status, Dynomite's {@code /info}) as plain Java
 * values, the counterpart of {@link JsonOut}: objects become insertion-ordered maps, arrays lists,
 * integral numbers {@code Long} and other numbers {@code Double}. Strict RFC 8259: a document with
 * trailing text, comments or unquoted names is refused with an exception that says where.
 */
public final class JsonIn {
  private static final Gson GSON = new GsonBuilder()
      .setStrictness(Strictness.STRICT)
      .setObjectToNumberStrategy(ToNumberPolicy.LONG_OR_DOUBLE)
      .create();

  private JsonIn() {}

  /** Any JSON value; an empty text is an error, not null. */
  public static Object parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("not JSON: the text is empty");
    }
    return GSON.fromJson(text, Object.class);
  }

  /** A JSON object, or an error naming what the text held instead. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> parseObject(String text) {
    Object v = parse(text);
    if (!(v instanceof Map<?, ?> m)) {
      throw new IllegalArgumentException("expected a JSON object, got " + typeName(v));
    }
    return (Map<String, Object>) m;
  }

  private static String typeName(Object v) {
    if (v == null) return "null";
    if (v instanceof List<?>) return "an array";
    if (v instanceof String) return "a string";
    if (v instanceof Number) return "a number";
    return v instanceof Boolean ? "a boolean" : v.getClass().getSimpleName();
  }
}
