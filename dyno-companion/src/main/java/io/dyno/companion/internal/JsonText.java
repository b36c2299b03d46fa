package io.dyno.companion.internal;

/** A JSON string literal, for the admin port's hand-written replies. */
final class JsonText {
  private JsonText() {}

  /** {@code s} quoted, with quotes, backslashes and control characters escaped. */
  static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char ch : s.toCharArray()) {
      switch (ch) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        default -> {
          if (ch < 0x20) {
            sb.append(String.format("\\u%04x", (int) ch));
          } else {
            sb.append(ch);
          }
        }
      }
    }
    return sb.append('"').toString();
  }
}
