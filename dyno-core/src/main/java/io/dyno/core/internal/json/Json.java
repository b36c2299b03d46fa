package io.dyno.core.internal.json;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small, strict JSON reader (RFC 8259) for the admin documents Dyno reads (cluster_describe,
 * Dynomite-manager, Eureka). Not a general-purpose library: it builds plain Java values.
 *
 * <p>Objects become {@code Map<String,Object>} (insertion-ordered, unmodifiable), arrays
 * {@code List<Object>} (unmodifiable), strings {@code String}, numbers {@code Long} when integral
 * and in range, otherwise {@code Double}, {@code true/false} {@code Boolean}, {@code null} null.
 * Errors are {@link JsonException}s that name the offset, line and column and what was expected.
 */
public final class Json {
  /** Guards against stack overflow on hostile input. */
  private static final int MAX_DEPTH = 512;

  private final String s;
  private int pos;
  private int depth;

  private Json(String s) {
    this.s = s;
  }

  /** Parses one JSON value that must fill the whole text (surrounding whitespace allowed). */
  public static Object parse(String text) {
    if (text == null) {
      throw new JsonException("JSON text is null");
    }
    Json p = new Json(text);
    p.skipWs();
    if (p.pos >= text.length()) {
      throw new JsonException("empty JSON document");
    }
    Object v = p.value();
    p.skipWs();
    if (p.pos < text.length()) {
      throw p.error("unexpected " + p.describeHere() + " after the end of the JSON value");
    }
    return v;
  }

  /** Parses and requires an object at the top. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> parseObject(String text) {
    Object v = parse(text);
    if (!(v instanceof Map)) {
      throw new JsonException("expected a JSON object at the top level but found " + typeName(v));
    }
    return (Map<String, Object>) v;
  }

  /** Parses and requires an array at the top. */
  @SuppressWarnings("unchecked")
  public static List<Object> parseArray(String text) {
    Object v = parse(text);
    if (!(v instanceof List)) {
      throw new JsonException("expected a JSON array at the top level but found " + typeName(v));
    }
    return (List<Object>) v;
  }

  /** A short name for the JSON type of a parsed value, for error messages. */
  public static String typeName(Object v) {
    if (v == null) return "null";
    if (v instanceof Map) return "an object";
    if (v instanceof List) return "an array";
    if (v instanceof String) return "a string";
    if (v instanceof Number) return "a number";
    if (v instanceof Boolean) return "a boolean";
    return v.getClass().getSimpleName();
  }

  private Object value() {
    if (pos >= s.length()) {
      throw error("unexpected end of input, expected a value");
    }
    char c = s.charAt(pos);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        literal("true");
        return Boolean.TRUE;
      case 'f':
        literal("false");
        return Boolean.FALSE;
      case 'n':
        literal("null");
        return null;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return number();
        }
        throw error("unexpected " + describeHere() + ", expected a value");
    }
  }

  private Map<String, Object> object() {
    enter();
    pos++; // '{'
    Map<String, Object> map = new LinkedHashMap<>();
    skipWs();
    if (peek() == '}') {
      pos++;
      depth--;
      return Collections.unmodifiableMap(map);
    }
    while (true) {
      skipWs();
      if (peek() != '"') {
        throw error("unexpected " + describeHere() + ", expected a string key in an object");
      }
      int keyAt = pos;
      String key = string();
      skipWs();
      expect(':', "after an object key");
      skipWs();
      Object v = value();
      if (map.containsKey(key)) {
        pos = keyAt;
        throw error("duplicate key \"" + key + "\" in an object");
      }
      map.put(key, v);
      skipWs();
      char c = peek();
      if (c == ',') {
        pos++;
      } else if (c == '}') {
        pos++;
        depth--;
        return Collections.unmodifiableMap(map);
      } else {
        throw error("unexpected " + describeHere() + ", expected ',' or '}' in an object");
      }
    }
  }

  private List<Object> array() {
    enter();
    pos++; // '['
    List<Object> list = new ArrayList<>();
    skipWs();
    if (peek() == ']') {
      pos++;
      depth--;
      return Collections.unmodifiableList(list);
    }
    while (true) {
      skipWs();
      list.add(value());
      skipWs();
      char c = peek();
      if (c == ',') {
        pos++;
      } else if (c == ']') {
        pos++;
        depth--;
        return Collections.unmodifiableList(list);
      } else {
        throw error("unexpected " + describeHere() + ", expected ',' or ']' in an array");
      }
    }
  }

  private String string() {
    int start = pos;
    pos++; // opening quote
    StringBuilder sb = null;
    int runStart = pos;
    while (true) {
      if (pos >= s.length()) {
        pos = start;
        throw error("unterminated string");
      }
      char c = s.charAt(pos);
      if (c == '"') {
        String out = sb == null
            ? s.substring(runStart, pos)
            : sb.append(s, runStart, pos).toString();
        pos++;
        return out;
      }
      if (c < 0x20) {
        throw error("control character U+" + String.format("%04X", (int) c)
            + " in a string (must be escaped)");
      }
      if (c == '\\') {
        if (sb == null) sb = new StringBuilder();
        sb.append(s, runStart, pos);
        pos++;
        if (pos >= s.length()) {
          pos = start;
          throw error("unterminated string");
        }
        char e = s.charAt(pos);
        switch (e) {
          case '"':
            sb.append('"');
            break;
          case '\\':
            sb.append('\\');
            break;
          case '/':
            sb.append('/');
            break;
          case 'b':
            sb.append('\b');
            break;
          case 'f':
            sb.append('\f');
            break;
          case 'n':
            sb.append('\n');
            break;
          case 'r':
            sb.append('\r');
            break;
          case 't':
            sb.append('\t');
            break;
          case 'u':
            if (pos + 4 >= s.length()) {
              throw error("incomplete \\u escape");
            }
            int cp = 0;
            for (int i = 1; i <= 4; i++) {
              int d = Character.digit(s.charAt(pos + i), 16);
              if (d < 0) {
                pos += i;
                throw error("invalid hex digit " + describeHere() + " in a \\u escape");
              }
              cp = cp * 16 + d;
            }
            sb.append((char) cp);
            pos += 4;
            break;
          default:
            throw error("invalid escape '\\" + e + "' in a string");
        }
        pos++;
        runStart = pos;
        continue;
      }
      pos++;
    }
  }

  private Number number() {
    int start = pos;
    if (peek() == '-') pos++;
    if (peek() == '0') {
      pos++;
    } else if (isDigit(peek())) {
      while (isDigit(peek())) pos++;
    } else {
      throw error("unexpected " + describeHere() + ", expected a digit in a number");
    }
    boolean integral = true;
    if (peek() == '.') {
      integral = false;
      pos++;
      if (!isDigit(peek()))
        throw error("unexpected " + describeHere() + ", expected a digit after '.'");
      while (isDigit(peek())) pos++;
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      pos++;
      if (peek() == '+' || peek() == '-') pos++;
      if (!isDigit(peek()))
        throw error("unexpected " + describeHere() + ", expected a digit in an exponent");
      while (isDigit(peek())) pos++;
    }
    String text = s.substring(start, pos);
    if (integral) {
      try {
        return Long.parseLong(text);
      } catch (NumberFormatException tooBig) {
        // falls through to Double
      }
    }
    return Double.parseDouble(text);
  }

  private void literal(String word) {
    if (!s.startsWith(word, pos)) {
      throw error("unexpected " + describeHere() + ", expected '" + word + "'");
    }
    pos += word.length();
  }

  private void enter() {
    if (++depth > MAX_DEPTH) {
      throw error("nesting deeper than " + MAX_DEPTH + " levels");
    }
  }

  private void expect(char c, String where) {
    if (peek() != c) {
      throw error("unexpected " + describeHere() + ", expected '" + c + "' " + where);
    }
    pos++;
  }

  private char peek() {
    return pos < s.length() ? s.charAt(pos) : '\0';
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private void skipWs() {
    while (pos < s.length()) {
      char c = s.charAt(pos);
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        pos++;
      } else {
        return;
      }
    }
  }

  private String describeHere() {
    if (pos >= s.length()) return "end of input";
    char c = s.charAt(pos);
    return c < 0x20 ? "character U+" + String.format("%04X", (int) c) : "'" + c + "'";
  }

  private JsonException error(String what) {
    int line = 1;
    int col = 1;
    for (int i = 0; i < Math.min(pos, s.length()); i++) {
      if (s.charAt(i) == '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
    }
    return new JsonException(
        "invalid JSON at offset " + pos + " (line " + line + ", column " + col + "): " + what);
  }
}
