package io.dyno.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Keys in error messages: as redis-cli prints them, whatever their bytes, and cut when long. */
class KeyTextTest {

  @Test
  void printableAsciiIsShownAsIsInQuotes() {
    assertThat(KeyText.show("user:{42}:name ~!")).isEqualTo("\"user:{42}:name ~!\"");
    assertThat(KeyText.show("".getBytes(StandardCharsets.US_ASCII))).isEqualTo("\"\"");
  }

  @Test
  void otherBytesAreEscapedAsRedisCliDoes() {
    byte[] key = {'k', 0, (byte) 0xff, (byte) 0x80, 0x7f, 0x1b, '\n', '\r', '\t', 7, '\b', '"', '\\'
    };
    assertThat(KeyText.show(key))
        .isEqualTo("\"k\\x00\\xff\\x80\\x7f\\x1b\\n\\r\\t\\a\\b\\\"\\\\\"");
  }

  @Test
  void aStringKeyIsShownAsTheUtf8BytesSent() {
    assertThat(KeyText.show("café\n")).isEqualTo("\"caf\\xc3\\xa9\\n\"");
    assertThat(KeyText.show((Object) "café".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo("\"caf\\xc3\\xa9\"");
  }

  @Test
  void aLongKeyIsCutAfter64BytesAndGivesItsLength() {
    byte[] exactly = new byte[KeyText.MAX_SHOWN_BYTES];
    Arrays.fill(exactly, (byte) 'a');
    assertThat(KeyText.show(exactly)).isEqualTo("\"" + "a".repeat(64) + "\"");

    byte[] longer = new byte[20_000];
    Arrays.fill(longer, (byte) 0xfe);
    String shown = KeyText.show(longer);
    assertThat(shown).isEqualTo("\"" + "\\xfe".repeat(64) + "\"... (20000 bytes)");
  }

  @Test
  void nullIsShownAsNull() {
    assertThat(KeyText.show((Object) null)).isEqualTo("null");
    assertThat(KeyText.show((byte[]) null)).isEqualTo("null");
  }
}
