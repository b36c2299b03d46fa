package io.dyno.core.routing;

/**
 * Turns a key into its Dynomite token hash, applying the cluster's hash tag when one is configured.
 *
 * <p>Dynomite's rule, followed exactly: with tag {@code "{}"}, the hash input is the bytes strictly
 * between the first {@code '{'} and the first {@code '}'} after it; if there is no such pair, the
 * whole key. An empty tag ({@code "{}x"}) therefore hashes the empty string (unlike Redis Cluster).
 */
public final class KeyHasher {
  private static final KeyHasher NO_TAG = new KeyHasher((char) 0, (char) 0, false);

  private final char open;
  private final char close;
  private final boolean tagged;

  private KeyHasher(char open, char close, boolean tagged) {
    this.open = open;
    this.close = close;
    this.tagged = tagged;
  }

  /**
   * A hasher for a cluster configured with {@code hashtag}.
   *
   * @param hashtag exactly two ASCII characters such as {@code "{}"}, or null or empty for none
   * @return the hasher (immutable, thread-safe)
   * @throws IllegalArgumentException naming the value when it is not two ASCII characters
   */
  public static KeyHasher forHashtag(String hashtag) {
    if (hashtag == null || hashtag.isEmpty()) {
      return NO_TAG;
    }
    if (hashtag.length() != 2 || hashtag.charAt(0) >= 0x80 || hashtag.charAt(1) >= 0x80) {
      throw new IllegalArgumentException(
          "hashtag must be exactly two ASCII characters, like \"{}\", but was \"" + hashtag + "\"");
    }
    return new KeyHasher(hashtag.charAt(0), hashtag.charAt(1), true);
  }

  /** {@return a hasher without hash tags: the whole key is hashed} */
  public static KeyHasher noHashtag() {
    return NO_TAG;
  }

  /** {@return the configured tag, e.g. {@code "{}"}, or the empty string} */
  public String hashtag() {
    return tagged ? "" + open + close : "";
  }

  /**
   * Hashes a key, hash tag applied.
   *
   * @param key the key's bytes; not null
   * @return Dynomite's hash of the tagged part (or of the whole key), an unsigned 32-bit value
   */
  public long hash(byte[] key) {
    if (tagged) {
      for (int i = 0; i < key.length; i++) {
        if (key[i] == open) {
          for (int j = i + 1; j < key.length; j++) {
            if (key[j] == close) {
              return DynomiteHash.hash(key, i + 1, j);
            }
          }
          break; // first open char has no close after it: whole key
        }
      }
    }
    return DynomiteHash.hash(key);
  }

  /**
   * Hashes a key's UTF-8 encoding, hash tag applied, without allocating.
   *
   * @param key the key; not null
   * @return the same value as {@link #hash(byte[])} of the key's UTF-8 bytes
   */
  public long hash(CharSequence key) {
    if (tagged) {
      int n = key.length();
      for (int i = 0; i < n; i++) {
        if (key.charAt(i) == open) {
          for (int j = i + 1; j < n; j++) {
            if (key.charAt(j) == close) {
              return DynomiteHash.hash(key, i + 1, j);
            }
          }
          break;
        }
      }
    }
    return DynomiteHash.hash(key);
  }

  @Override
  public String toString() {
    return tagged ? "KeyHasher{hashtag=" + hashtag() + "}" : "KeyHasher{no hashtag}";
  }
}
