package io.dyno.core.routing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DynomiteHashTest {

  /** Vectors observed on a real Dynomite (../shared/dynomite-facts.md). */
  @ParameterizedTest(name = "\"{0}\" -> {1}")
  @CsvSource({
    "'', 0",
    "a, 1262581116",
    "foo, 3303027599",
    "bar, 516654467",
    "hello, 1377504255",
    "abc, 2064434216",
    "user:1, 3587224931",
    "key:42, 1476153612",
    "user1, 766992236",
    "{user1}:a, 1084432932",
    "{user1}:d, 4027579976"
  })
  void matchesDynomiteForStringsAndBytes(String key, long expected) {
    assertThat(DynomiteHash.hash(key)).isEqualTo(expected);
    assertThat(DynomiteHash.hash(key.getBytes(StandardCharsets.UTF_8))).isEqualTo(expected);
  }

  @Test
  void stringHashEqualsHashOfItsUtf8BytesForAnyText() {
    Random random = new Random(42);
    for (int round = 0; round < 5_000; round++) {
      StringBuilder sb = new StringBuilder();
      int len = random.nextInt(20);
      for (int i = 0; i < len; i++) {
        switch (random.nextInt(5)) {
          case 0 -> sb.append((char) random.nextInt(0x80));
          case 1 -> sb.append((char) (0x80 + random.nextInt(0x780)));
          case 2 -> sb.append((char) (0x800 + random.nextInt(0xD000 - 0x800)));
          case 3 -> sb.appendCodePoint(0x10000 + random.nextInt(0x100000));
          default -> sb.append((char) (0xD800 + random.nextInt(0x800))); // unpaired surrogate
        }
      }
      String s = sb.toString();
      assertThat(DynomiteHash.hash(s))
          .as("key %s", s)
          .isEqualTo(DynomiteHash.hash(s.getBytes(StandardCharsets.UTF_8)));
    }
  }

  @Test
  void asciiFastPathMatchesTheByteHashForEveryLengthAndRange() {
    Random random = new Random(7);
    for (int len = 0; len <= 40; len++) {
      char[] chars = new char[len];
      for (int i = 0; i < len; i++) chars[i] = (char) random.nextInt(0x80);
      String s = new String(chars);
      byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
      assertThat(DynomiteHash.hash(s)).as("length %d", len).isEqualTo(DynomiteHash.hash(bytes));
      for (int from = 0; from <= len; from++) {
        int to = from + random.nextInt(len - from + 1);
        assertThat(DynomiteHash.hash(s, from, to)).isEqualTo(DynomiteHash.hash(bytes, from, to));
      }
    }
    // a non-ASCII char in the tail or in a block, whose bits could hide behind its neighbours
    for (String s : new String[] {
      "ab\u0100\u0001",
      "abcd\u0100\u0001",
      "abcd\u0001\u0100",
      "\u0080",
      "abcd\uffff",
      "\u0100\u0001abc",
      "x\ud83d\ude00"
    }) {
      assertThat(DynomiteHash.hash(s))
          .as(s)
          .isEqualTo(DynomiteHash.hash(s.getBytes(StandardCharsets.UTF_8)));
    }
    // ASCII inside the range, non-ASCII outside it: the range alone decides
    String mixed = "\u00e9{user1}\u00e9";
    assertThat(DynomiteHash.hash(mixed, 2, 7)).isEqualTo(766992236L);
  }

  @Test
  void hashtagIsolatesTheTaggedPart() {
    KeyHasher hasher = KeyHasher.forHashtag("{}");
    assertThat(hasher.hash("{user1}:a")).isEqualTo(766992236L);
    assertThat(hasher.hash("{user1}:d")).isEqualTo(766992236L);
    assertThat(hasher.hash("user1")).isEqualTo(766992236L);
    assertThat(hasher.hash("{user1}:a".getBytes(StandardCharsets.UTF_8))).isEqualTo(766992236L);
  }

  @Test
  void hashtagEdgeCasesFollowDynomite() {
    KeyHasher hasher = KeyHasher.forHashtag("{}");
    // no close char: the whole key
    assertThat(hasher.hash("{user1:a")).isEqualTo(DynomiteHash.hash("{user1:a"));
    // close before open only: the whole key
    assertThat(hasher.hash("}user1{")).isEqualTo(DynomiteHash.hash("}user1{"));
    // empty tag: the empty string
    assertThat(hasher.hash("{}user1")).isEqualTo(0L);
    // several tags: the first one wins
    assertThat(hasher.hash("{user1}{abc}")).isEqualTo(766992236L);
    // first open, then nested open: the bytes up to the first close
    assertThat(hasher.hash("{{user1}")).isEqualTo(DynomiteHash.hash("{user1"));
    assertThat(hasher.hash("{{user1}".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(DynomiteHash.hash("{user1"));
    // no tag configured: the braces are ordinary bytes
    assertThat(KeyHasher.noHashtag().hash("{user1}:a")).isEqualTo(1084432932L);
  }
}
