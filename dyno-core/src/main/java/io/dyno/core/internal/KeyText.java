package io.dyno.core.internal;

import java.nio.charset.StandardCharsets;

/**
 * A key as error messages show it. Keys are bytes, often binary (a serialized id, a hash); decoded
 * as UTF-8 they would print as replacement characters, or as control characters that break the log
 * line. So a key is shown as redis-cli shows a string: quoted, printable ASCII as is, {@code "} and
 * {@code \} escaped, {@code \n \r \t \a \b} by name, every other byte as {@code \xNN}: unambiguous,
 * and the same text redis-cli prints for that key. A String key is shown as its UTF-8 bytes, the
 * bytes sent. A key longer than {@link #MAX_SHOWN_BYTES} is cut there and followed by its length,
 * so one huge key cannot swamp the message.
 */
public final class KeyText {
  /** Bytes of a key shown before it is cut. */
  public static final int MAX_SHOWN_BYTES = 64;

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private KeyText() {}

  /**
   * The key quoted and escaped, e.g. {@code "user:\x00\xff"}; a long one as
   * {@code "first 64 bytes"... (16320 bytes)}. A {@code byte[]} is shown as is, anything else as
   * the UTF-8 bytes of its string form; null as {@code null}.
   */
  public static String show(Object key) {
    if (key == null) {
      return "null";
    }
    return show(key instanceof byte[] b ? b : String.valueOf(key).getBytes(StandardCharsets.UTF_8));
  }

  /** See {@link #show(Object)}. */
  public static String show(byte[] key) {
    if (key == null) {
      return "null";
    }
    int shown = Math.min(key.length, MAX_SHOWN_BYTES);
    StringBuilder sb = new StringBuilder(shown + 24).append('"');
    for (int i = 0; i < shown; i++) {
      int c = key[i] & 0xff;
      switch (c) {
        case '\\' -> sb.append("\\\\");
        case '"' -> sb.append("\\\"");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        case 7 -> sb.append("\\a");
        case '\b' -> sb.append("\\b");
        default -> {
          if (c >= 0x20 && c < 0x7f) {
            sb.append((char) c);
          } else {
            sb.append("\\x").append(HEX[c >> 4]).append(HEX[c & 0xf]);
          }
        }
      }
    }
    sb.append('"');
    if (shown < key.length) {
      sb.append("... (").append(key.length).append(" bytes)");
    }
    return sb.toString();
  }
}
