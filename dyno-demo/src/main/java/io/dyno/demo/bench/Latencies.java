package io.dyno.demo.bench;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Latencies of the load generator are HdrHistogram histograms in microseconds (3 significant
 * digits, auto-resizing). Per progress interval a {@link Recorder} hands out the interval's
 * histogram and starts a fresh one, so a run of any length keeps a fixed number of histograms.
 */
public final class Latencies {
  private Latencies() {}

  public static Histogram histogram() {
    Histogram h = new Histogram(3);
    h.setAutoResize(true);
    return h;
  }

  public static Recorder recorder() {
    return new Recorder(3);
  }

  /** Nanoseconds to whole microseconds, never negative (a clock step backwards counts as 0). */
  public static long micros(long nanos) {
    return Math.max(0, nanos) / 1000;
  }

  /** The value in µs at quantile {@code q} (0..1) as HdrHistogram reports it (equivalent range's highest value), 0 when empty. */
  public static long percentile(Histogram h, double q) {
    if (h == null || h.getTotalCount() == 0) return 0;
    return q >= 1.0 ? h.getMaxValue() : h.getValueAtPercentile(q * 100);
  }
}
