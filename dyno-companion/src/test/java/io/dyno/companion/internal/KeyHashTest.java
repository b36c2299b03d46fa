package io.dyno.companion.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The companion's own hash against the vectors observed on a real Dynomite (shared/dynomite-facts.md). */
class KeyHashTest {
  private static final KeyHash PLAIN = KeyHash.forHashtag(null);
  private static final KeyHash TAGGED = KeyHash.forHashtag("{}");

  @ParameterizedTest
  @CsvSource({
    "'',0",
    "a,1262581116",
    "foo,3303027599",
    "bar,516654467",
    "hello,1377504255",
    "abc,2064434216",
    "user:1,3587224931",
    "key:42,1476153612",
    "user1,766992236",
    "{user1}:a,1084432932",
    "{user1}:d,4027579976"
  })
  void murmurMatchesDynomite(String key, long expected) {
    assertThat(PLAIN.hash(key)).isEqualTo(expected);
  }

  @Test
  void hashTagHashesTheTextBetweenTheFirstOpenAndTheNextClose() {
    assertThat(TAGGED.hash("{user1}:a")).isEqualTo(766992236L);
    assertThat(TAGGED.hash("{user1}:d")).isEqualTo(766992236L);
    assertThat(TAGGED.hash("x{user1}y{z}")).isEqualTo(766992236L);
    assertThat(TAGGED.hash("user1")).isEqualTo(766992236L);
    // no complete pair: the whole key
    assertThat(TAGGED.hash("foo{")).isEqualTo(PLAIN.hash("foo{"));
    assertThat(TAGGED.hash("}foo{")).isEqualTo(PLAIN.hash("}foo{"));
    // an empty tag hashes the empty input
    assertThat(TAGGED.hash("{}foo")).isEqualTo(0L);
  }

  @Test
  void ownershipIsTheSmallestTokenAtOrAboveTheHashWrappingToTheSmallest() {
    RingEntry t0 = new RingEntry("dc1", "rack1", 0, "127.0.0.1", 1, 2);
    RingEntry t1 = new RingEntry("dc1", "rack1", 2147483647L, "127.0.0.1", 3, 4);
    Ring ring = new Ring(t0, List.of(t1, t0));
    for (String k : List.of("foo", "user:1")) {
      assertThat(ring.localRack.owner(PLAIN.hash(k))).as(k).isEqualTo(t0);
    }
    for (String k : List.of("bar", "hello", "key:42")) {
      assertThat(ring.localRack.owner(PLAIN.hash(k))).as(k).isEqualTo(t1);
    }
    assertThat(ring.localRack.owner(TAGGED.hash("{user1}:d"))).isEqualTo(t1); // user1 -> 766992236
    assertThat(ring.localRack.owner(PLAIN.hash("{user1}:d"))).isEqualTo(t0); // 4027579976 wraps
    assertThat(ring.localRack.owner(0)).isEqualTo(t0);
    assertThat(ring.localRack.owner(2147483647L)).isEqualTo(t1);
    assertThat(ring.localRack.owner(2147483648L)).isEqualTo(t0);
  }

  @Test
  void badHashtagIsNamed() {
    assertThatThrownBy(() -> KeyHash.forHashtag("{")).hasMessageContaining("\"{\"");
  }
}
