package io.dyno.loadgen.bench;

import java.util.concurrent.ThreadLocalRandom;

/** Picks key indexes in {@code [0, keys)} following a {@link KeyDistribution}. Thread-safe. */
final class KeyChooser {
  private final KeyDistribution dist;
  private final long keys;
  private final long windowSize;
  private final long slidePerSecond;
  private final long hotKeys;
  private final double hotAccess;
  private final long startNanos = System.nanoTime();
  // Zipfian constants (the rejection-free method of Gray et al., "Quickly generating billion-record
  // synthetic databases").
  private final double theta;
  private final double zetan;
  private final double alpha;
  private final double eta;
  private final double halfPowTheta;

  KeyChooser(BenchConfig c) {
    this.dist = c.distribution;
    this.keys = c.keys;
    this.windowSize = c.windowSize;
    this.slidePerSecond = c.windowSlidePerSecond;
    this.theta = c.zipfTheta;
    this.hotKeys = Math.max(1, Math.round(c.keys * c.hotKeysPercent / 100.0));
    this.hotAccess = c.hotAccessPercent / 100.0;
    if (dist == KeyDistribution.ZIPFIAN) {
      zetan = zeta(keys, theta);
      double zeta2 = zeta(2, theta);
      alpha = 1.0 / (1.0 - theta);
      eta = (1 - Math.pow(2.0 / keys, 1 - theta)) / (1 - zeta2 / zetan);
      halfPowTheta = Math.pow(0.5, theta);
    } else {
      zetan = alpha = eta = halfPowTheta = 0;
    }
  }

  /** Sum of 1/i^theta for i in 1..n; exact up to 10M terms, then the integral tail (error far below noise). */
  static double zeta(long n, double theta) {
    long exact = Math.min(n, 10_000_000L);
    double sum = 0;
    for (long i = 1; i <= exact; i++) {
      sum += 1.0 / Math.pow(i, theta);
    }
    if (n > exact) {
      sum += (Math.pow(n, 1 - theta) - Math.pow(exact, 1 - theta)) / (1 - theta);
    }
    return sum;
  }

  long next() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    switch (dist) {
      case UNIFORM:
        return r.nextLong(keys);
      case ZIPFIAN: {
        double u = r.nextDouble();
        double uz = u * zetan;
        long rank;
        if (uz < 1.0) {
          rank = 0;
        } else if (uz < 1.0 + halfPowTheta) {
          rank = 1;
        } else {
          rank = Math.min(keys - 1, (long) (keys * Math.pow(eta * u - eta + 1, alpha)));
        }
        return scramble(rank);
      }
      case HOT_SET:
        return r.nextDouble() < hotAccess ? scramble(r.nextLong(hotKeys)) : r.nextLong(keys);
      default: {
        long elapsedMs = (System.nanoTime() - startNanos) / 1_000_000;
        long start = (elapsedMs * slidePerSecond / 1000) % keys;
        return (start + r.nextLong(windowSize)) % keys;
      }
    }
  }

  /** Spreads hot ranks over the key space (FNV-1a of the rank) so the hottest keys are not neighbours. */
  private long scramble(long rank) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < 8; i++) {
      h ^= (rank >>> (i * 8)) & 0xff;
      h *= 0x100000001b3L;
    }
    return Math.floorMod(h, keys);
  }
}
