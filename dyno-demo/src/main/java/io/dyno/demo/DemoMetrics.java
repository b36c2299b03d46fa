package io.dyno.demo;

import com.netflix.spectator.api.Counter;
import com.netflix.spectator.api.DistributionSummary;
import com.netflix.spectator.api.Meter;
import com.netflix.spectator.api.Registry;
import com.netflix.spectator.api.Tag;
import com.netflix.spectator.api.Timer;
import com.netflix.spectator.api.histogram.PercentileBuckets;
import io.dyno.core.metrics.DynoMetrics;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** The few numbers a user would watch, read from the client's Spectator registry (names in {@link DynoMetrics}). */
final class DemoMetrics {
  private DemoMetrics() {}

  static Map<String, String> watched(Registry registry) {
    Map<String, String> out = new LinkedHashMap<>();
    // On the multiplexed transport (the default) the wait that matters is submit-to-write on the
    // shared connection; on the pooled one, the borrow of a connection.
    boolean mux =
        registry.stream().anyMatch(m -> m.id().name().equals(DynoMetrics.MUX_QUEUE_DELAY));
    String borrowMeter = mux ? DynoMetrics.MUX_QUEUE_DELAY : DynoMetrics.POOL_BORROW;
    long borrows = 0;
    double borrowNanos = 0;
    long ops = 0;
    double opNanos = 0;
    long failed = 0;
    long failovers = 0;
    long retries = 0;
    long writes = 0;
    long written = 0;
    long[] buckets = new long[PercentileBuckets.length()];
    for (Meter m : (Iterable<Meter>) registry.stream()::iterator) {
      String name = m.id().name();
      if (name.equals(borrowMeter) && m instanceof Timer t) {
        borrows += t.count();
        borrowNanos += t.totalTime();
      } else if (name.equals(borrowMeter) && m instanceof Counter c) {
        String bucket = tag(m, "percentile");
        if (bucket != null && bucket.startsWith("T")) {
          buckets[Integer.parseInt(bucket.substring(1), 16)] += c.count();
        }
      } else if (name.equals(DynoMetrics.OP_LATENCY) && m instanceof Timer t) {
        ops += t.count();
        opNanos += t.totalTime();
        if (!"success".equals(tag(m, "outcome"))) failed += t.count();
      } else if (name.equals(DynoMetrics.OP_FAILOVERS) && m instanceof Counter c) {
        failovers += c.count();
      } else if (name.equals(DynoMetrics.OP_RETRIES) && m instanceof Counter c) {
        retries += c.count();
      } else if (name.equals(DynoMetrics.MUX_WRITE_COMMANDS)
          && m instanceof DistributionSummary d) {
        writes += d.count();
        written += d.totalAmount();
      }
    }
    out.put(
        "borrow delay",
        String.format(
            Locale.ROOT,
            "mean %.3f ms, p99 under %.3f ms (%d %s)",
            borrows == 0 ? 0 : borrowNanos / borrows / 1e6,
            p99UpperBound(buckets) / 1e6,
            borrows,
            mux
                ? "requests; multiplexed: submit to the write that carried each one"
                : "borrows; one that found a free connection counts as 0"));
    out.put(
        "operations",
        String.format(
            Locale.ROOT,
            "%d, mean latency %.3f ms, failed %d",
            ops,
            ops == 0 ? 0 : opNanos / ops / 1e6,
            failed));
    out.put("failovers", Long.toString(failovers));
    out.put("retries", Long.toString(retries));
    if (writes > 0) {
      out.put(
          "commands per write",
          String.format(
              Locale.ROOT,
              "%.1f (%d commands in %d writes to the nodes)",
              (double) written / writes,
              written,
              writes));
    }
    return out;
  }

  /** The upper bound, in nanoseconds, of the bucket that holds the 99th percentile (0 when empty). */
  private static long p99UpperBound(long[] buckets) {
    long total = 0;
    for (long b : buckets) total += b;
    long seen = 0;
    for (int i = 0; i < buckets.length; i++) {
      seen += buckets[i];
      if (total > 0 && seen >= Math.ceil(total * 0.99)) return PercentileBuckets.get(i);
    }
    return 0;
  }

  private static String tag(Meter m, String key) {
    for (Tag t : m.id().tags()) {
      if (t.key().equals(key)) return t.value();
    }
    return null;
  }
}
