package io.dyno.demo.bench;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A lock-free latency histogram in microseconds with about 3% relative precision: values below
 * 32 µs get their own bucket, above that each power of two is split into 32 linear sub-buckets.
 * Recording is one atomic increment, so 40 load threads can share one instance per interval.
 */
public final class LatencyHistogram {
  private static final int SUB_BITS = 5;
  private static final int SUB = 1 << SUB_BITS;
  /** Covers up to 2^36 µs (19 hours): anything slower is clamped into the last bucket. */
  private static final int MAX_EXP = 36;
  private static final int BUCKETS = SUB + (MAX_EXP - SUB_BITS) * SUB;

  private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);

  public void recordNanos(long nanos) {
    recordMicros(Math.max(0, nanos) / 1000);
  }

  public void recordMicros(long micros) {
    counts.incrementAndGet(index(Math.max(0, micros)));
  }

  /** Records {@code count} observations of {@code micros}. */
  public void recordMicros(long micros, long count) {
    if (count > 0) {
      counts.addAndGet(index(Math.max(0, micros)), count);
    }
  }

  static int index(long v) {
    if (v < SUB) {
      return (int) v;
    }
    int exp = 63 - Long.numberOfLeadingZeros(v); // >= SUB_BITS
    if (exp >= MAX_EXP) {
      return BUCKETS - 1;
    }
    int sub = (int) ((v >>> (exp - SUB_BITS)) & (SUB - 1));
    return SUB + (exp - SUB_BITS) * SUB + sub;
  }

  /** The upper bound (inclusive) in µs of bucket {@code i}: reported percentiles never flatter. */
  static long upperBound(int i) {
    if (i < SUB) {
      return i;
    }
    int exp = (i - SUB) / SUB + SUB_BITS;
    int sub = (i - SUB) % SUB;
    long base = (1L << exp) + ((long) sub << (exp - SUB_BITS));
    return base + (1L << (exp - SUB_BITS)) - 1;
  }

  public long count() {
    long n = 0;
    for (int i = 0; i < BUCKETS; i++) {
      n += counts.get(i);
    }
    return n;
  }

  /** Adds {@code other}'s counts into this one. */
  public void add(LatencyHistogram other) {
    for (int i = 0; i < BUCKETS; i++) {
      long c = other.counts.get(i);
      if (c != 0) {
        counts.addAndGet(i, c);
      }
    }
  }

  /** The value in µs at quantile {@code q} (0..1), or 0 when empty. */
  public long percentileMicros(double q) {
    long total = count();
    if (total == 0) {
      return 0;
    }
    long rank = Math.max(1, (long) Math.ceil(q * total));
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += counts.get(i);
      if (seen >= rank) {
        return upperBound(i);
      }
    }
    return upperBound(BUCKETS - 1);
  }

  public double meanMicros() {
    long n = 0;
    double sum = 0;
    for (int i = 0; i < BUCKETS; i++) {
      long c = counts.get(i);
      if (c != 0) {
        n += c;
        sum += c * (double) upperBound(i);
      }
    }
    return n == 0 ? 0 : sum / n;
  }
}
