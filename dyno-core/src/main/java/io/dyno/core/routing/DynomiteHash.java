package io.dyno.core.routing;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Dynomite's default key hash ("murmur"): MurmurHash2, 32-bit, with Dynomite's seed
 * {@code 0xdeadbeef * length}. The result is an unsigned 32-bit value held in a {@code long}.
 *
 * <p>String keys are hashed over their UTF-8 bytes, encoded on the fly so the hot path does not
 * allocate. Unpaired surrogates are hashed as {@code '?'}, exactly as {@code String.getBytes(UTF_8)}
 * would encode them, so a string key and its UTF-8 bytes always land on the same token.
 */
public final class DynomiteHash {
  private static final int M = 0x5bd1e995;
  private static final int R = 24;
  private static final VarHandle LE_INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private DynomiteHash() {}

  /**
   * Hashes a whole array.
   *
   * @param key the key's bytes; not null
   * @return the hash, an unsigned 32-bit value
   */
  public static long hash(byte[] key) {
    return hash(key, 0, key.length);
  }

  /**
   * Hashes {@code key[from, to)}.
   *
   * @param key the bytes; not null
   * @param from the first byte's index
   * @param to the index after the last byte
   * @return the hash, an unsigned 32-bit value
   */
  public static long hash(byte[] key, int from, int to) {
    int length = to - from;
    int h = (0xdeadbeef * length) ^ length;
    int i = from;
    while (to - i >= 4) {
      int k = (int) LE_INT.get(key, i); // one little-endian load instead of four byte loads
      h = mixBlock(h, k);
      i += 4;
    }
    switch (to - i) {
      case 3:
        h ^= (key[i + 2] & 0xff) << 16;
      // fall through
      case 2:
        h ^= (key[i + 1] & 0xff) << 8;
      // fall through
      case 1:
        h ^= key[i] & 0xff;
        h *= M;
        break;
      default:
        break;
    }
    return finish(h);
  }

  /**
   * Hashes the UTF-8 encoding of a whole string, without allocating.
   *
   * @param key the key; not null
   * @return the hash, an unsigned 32-bit value (equal to the hash of the key's UTF-8 bytes)
   */
  public static long hash(CharSequence key) {
    return hash(key, 0, key.length());
  }

  /**
   * Hashes the UTF-8 encoding of {@code key[from, to)}, without allocating.
   *
   * @param key the characters; not null
   * @param from the first char's index
   * @param to the index after the last char
   * @return the hash, an unsigned 32-bit value
   */
  public static long hash(CharSequence key, int from, int to) {
    long ascii = hashAscii(key, from, to); // the common case: one pass, one byte per char
    if (ascii >= 0) {
      return ascii;
    }
    int length = utf8Length(key, from, to);
    int h = (0xdeadbeef * length) ^ length;
    int block = 0; // bytes gathered little-endian, not yet mixed
    int filled = 0; // how many bytes 'block' holds
    for (int i = from; i < to; i++) {
      char c = key.charAt(i);
      int cp = c;
      if (Character.isHighSurrogate(c)
          && i + 1 < to
          && Character.isLowSurrogate(key.charAt(i + 1))) {
        cp = Character.toCodePoint(c, key.charAt(++i));
      } else if (Character.isSurrogate(c)) {
        cp = '?';
      }
      // Emit the code point's UTF-8 bytes one at a time into the 4-byte block.
      int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      for (int b = 0; b < n; b++) {
        int v = utf8Byte(cp, n, b);
        block |= v << (filled * 8);
        if (++filled == 4) {
          h = mixBlock(h, block);
          block = 0;
          filled = 0;
        }
      }
    }
    if (filled > 0) {
      h ^= block; // the tail bytes, already in little-endian position
      h *= M;
    }
    return finish(h);
  }

  /**
   * The hash of {@code key[from, to)} if every char is below 0x80 (its UTF-8 is itself), else -1.
   * Hashing and checking in one pass keeps ASCII keys as cheap as byte keys.
   */
  private static long hashAscii(CharSequence key, int from, int to) {
    int length = to - from;
    int h = (0xdeadbeef * length) ^ length;
    int seen = 0; // OR of every char: >= 0x80 means not ASCII
    int i = from;
    while (to - i >= 4) {
      int c0 = key.charAt(i);
      int c1 = key.charAt(i + 1);
      int c2 = key.charAt(i + 2);
      int c3 = key.charAt(i + 3);
      seen |= c0 | c1 | c2 | c3;
      h = mixBlock(h, c0 | c1 << 8 | c2 << 16 | c3 << 24);
      i += 4;
    }
    int rest = to - i;
    if (rest > 0) {
      int c0 = key.charAt(i);
      int c1 = rest > 1 ? key.charAt(i + 1) : 0;
      int c2 = rest > 2 ? key.charAt(i + 2) : 0;
      seen |= c0 | c1 | c2;
      h ^= c0 | c1 << 8 | c2 << 16;
      h *= M;
    }
    if (seen >= 0x80) {
      return -1;
    }
    return finish(h);
  }

  /** Number of bytes {@code key[from, to)} takes in UTF-8 (unpaired surrogates count as one). */
  static int utf8Length(CharSequence key, int from, int to) {
    int length = 0;
    for (int i = from; i < to; i++) {
      char c = key.charAt(i);
      if (c < 0x80) {
        length += 1;
      } else if (c < 0x800) {
        length += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < to
          && Character.isLowSurrogate(key.charAt(i + 1))) {
        length += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        length += 1;
      } else {
        length += 3;
      }
    }
    return length;
  }

  private static int utf8Byte(int cp, int n, int index) {
    switch (n) {
      case 1:
        return cp;
      case 2:
        return index == 0 ? 0xc0 | (cp >>> 6) : 0x80 | (cp & 0x3f);
      case 3:
        return index == 0 ? 0xe0 | (cp >>> 12) : 0x80 | ((cp >>> (6 * (2 - index))) & 0x3f);
      default:
        return index == 0 ? 0xf0 | (cp >>> 18) : 0x80 | ((cp >>> (6 * (3 - index))) & 0x3f);
    }
  }

  private static int mixBlock(int h, int k) {
    k *= M;
    k ^= k >>> R;
    k *= M;
    h *= M;
    h ^= k;
    return h;
  }

  private static long finish(int h) {
    h ^= h >>> 13;
    h *= M;
    h ^= h >>> 15;
    return h & 0xffffffffL;
  }
}
