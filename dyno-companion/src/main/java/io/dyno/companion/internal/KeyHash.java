package io.dyno.companion.internal;

import java.nio.charset.StandardCharsets;

/**
 * Dynomite's key hash ("murmur": 32-bit MurmurHash2 with seed {@code 0xdeadbeef * length}) with its
 * hash tag rule, written here on purpose and not taken from dyno-core: the companion is the oracle
 * the client's own hashing is tested against, so the two must not share one implementation.
 */
public final class KeyHash {
  private static final int M = 0x5bd1e995;
  private static final KeyHash NO_TAG = new KeyHash(-1, -1);

  private final int open;
  private final int close;

  private KeyHash(int open, int close) {
    this.open = open;
    this.close = close;
  }

  /**
   * The hasher for a configured hash tag: null or empty for none, else exactly two ASCII characters
   * such as {@code "{}"}.
   */
  public static KeyHash forHashtag(String hashtag) {
    if (hashtag == null || hashtag.isEmpty()) {
      return NO_TAG;
    }
    if (hashtag.length() != 2 || hashtag.charAt(0) >= 0x80 || hashtag.charAt(1) >= 0x80) {
      throw new IllegalArgumentException(
          "hashtag must be exactly two ASCII characters, like \"{}\", but was \"" + hashtag + "\"");
    }
    return new KeyHash(hashtag.charAt(0), hashtag.charAt(1));
  }

  public long hash(String key) {
    return hash(key.getBytes(StandardCharsets.UTF_8));
  }

  /** The unsigned 32-bit hash of the key's tag (bytes strictly between the first open char and the next close char), or of the whole key. */
  public long hash(byte[] key) {
    int from = 0;
    int to = key.length;
    if (open >= 0) {
      int start = indexOf(key, open, 0, key.length);
      if (start >= 0) {
        int end = indexOf(key, close, start + 1, key.length);
        if (end >= 0) {
          from = start + 1;
          to = end;
        }
      }
    }
    return murmur2(key, from, to - from);
  }

  private static int indexOf(byte[] b, int ch, int from, int to) {
    for (int i = from; i < to; i++) {
      if ((b[i] & 0xff) == ch) {
        return i;
      }
    }
    return -1;
  }

  /** MurmurHash2, 32 bits, over {@code len} bytes from {@code off}; Dynomite's seed; result unsigned. */
  static long murmur2(byte[] data, int off, int len) {
    int seed = 0xdeadbeef * len;
    int h = seed ^ len;
    int i = off;
    int left = len;
    while (left >= 4) {
      int k = (data[i] & 0xff)
          | (data[i + 1] & 0xff) << 8
          | (data[i + 2] & 0xff) << 16
          | (data[i + 3] & 0xff) << 24;
      k *= M;
      k ^= k >>> 24;
      k *= M;
      h *= M;
      h ^= k;
      i += 4;
      left -= 4;
    }
    switch (left) {
      case 3:
        h ^= (data[i + 2] & 0xff) << 16;
      // fall through
      case 2:
        h ^= (data[i + 1] & 0xff) << 8;
      // fall through
      case 1:
        h ^= data[i] & 0xff;
        h *= M;
        break;
      default:
        break;
    }
    h ^= h >>> 13;
    h *= M;
    h ^= h >>> 15;
    return h & 0xffffffffL;
  }
}
