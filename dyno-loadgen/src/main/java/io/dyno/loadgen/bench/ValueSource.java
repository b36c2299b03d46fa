package io.dyno.loadgen.bench;

import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;

/** Values of a fixed size, or of a size uniform in [min, max], cut from one random text. */
final class ValueSource {
  private final String text;
  private final int min;
  private final int max;

  ValueSource(int min, int max) {
    this.min = min;
    this.max = max;
    Random r = new Random(42);
    char[] c = new char[max * 2];
    String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int i = 0; i < c.length; i++) {
      c[i] = alphabet.charAt(r.nextInt(alphabet.length()));
    }
    this.text = new String(c);
  }

  String next() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    int len = min == max ? min : min + r.nextInt(max - min + 1);
    int off = r.nextInt(max);
    return text.substring(off, off + len);
  }
}
