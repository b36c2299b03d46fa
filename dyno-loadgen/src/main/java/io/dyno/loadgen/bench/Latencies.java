package io.dyno.loadgen.bench;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Latencies of the load generator are HdrHistogram histograms in microseconds (3 significant
 * digits) up to {@link #HIGHEST_MICROS}; longer values count as that. Per progress interval a
 * {@link Recorder} hands out the interval's histogram and starts a fresh one, so a run of any length
 * keeps a fixed number of histograms — of a fixed size: they are sized for the whole range up
 * front, not auto-resized, because a resize when a longer latency first appears (a node killed
 * minutes into an endless run) grew every histogram at once and read as a leak.
 */
public final class Latencies {
  /** Ten minutes: no call of the load generator waits that long (each has a deadline). */
  public static final long HIGHEST_MICROS = 600_000_000L;

  private Latencies() {}

  public static Histogram histogram() {
    return new Histogram(1, HIGHEST_MICROS, 3);
  }

  public static Recorder recorder() {
    return new Recorder(1, HIGHEST_MICROS, 3);
  }

  /** Nanoseconds to whole microseconds, never negative (a clock step backwards counts as 0), at most {@link #HIGHEST_MICROS}. */
  public static long micros(long nanos) {
    return clamp(Math.max(0, nanos) / 1000);
  }

  /** A value in microseconds brought into the histograms' range. */
  public static long clamp(long micros) {
    return Math.min(HIGHEST_MICROS, Math.max(0, micros));
  }

  /** The value in µs at quantile {@code q} (0..1) as HdrHistogram reports it (equivalent range's highest value), 0 when empty. */
  public static long percentile(Histogram h, double q) {
    if (h == null || h.getTotalCount() == 0) return 0;
    return q >= 1.0 ? h.getMaxValue() : h.getValueAtPercentile(q * 100);
  }
}
