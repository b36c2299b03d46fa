package io.dyno.loadgen.drivers;

import com.netflix.spectator.api.Counter;
import com.netflix.spectator.api.DistributionSummary;
import com.netflix.spectator.api.Meter;
import com.netflix.spectator.api.Registry;
import com.netflix.spectator.api.Tag;
import com.netflix.spectator.api.Timer;
import com.netflix.spectator.api.histogram.PercentileBuckets;
import io.dyno.core.metrics.DynoMetrics;
import io.dyno.loadgen.bench.Latencies;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * What Dyno's own Spectator registry says of a run: borrow delays (the pool's borrow timer, or on
 * the multiplexed transport the queue delay), operations, failovers, retries, timeouts, commands
 * per write and hedged reads, as the driver's summary shows them.
 */
final class DynoClientFigures {
  private DynoClientFigures() {}

  /** Count and total nanoseconds of every node's borrow timer ({@code meter}). */
  static double[] borrowTotals(Registry registry, String meter) {
    double[] t = new double[2];
    registry.stream().forEach(m -> {
      if (m.id().name().equals(meter) && m instanceof Timer timer) {
        t[0] += timer.count();
        t[1] += timer.totalTime();
      }
    });
    return t;
  }

  /** The borrow-delay histogram ({@code meter}) over all nodes (Spectator percentile buckets, cumulative). */
  static long[] borrowBuckets(Registry registry, String meter) {
    long[] counts = new long[PercentileBuckets.length()];
    registry.stream().forEach(m -> addBuckets(m, meter, counts));
    return counts;
  }

  private static void addBuckets(Meter m, String meter, long[] counts) {
    if (!m.id().name().equals(meter) || !(m instanceof Counter c)) {
      return;
    }
    for (Tag t : m.id().tags()) {
      if (t.key().equals("percentile") && t.value().startsWith("T")) {
        counts[Integer.parseInt(t.value().substring(1), 16)] += c.count();
      }
    }
  }

  /** The numbers a user would watch, from the client's registry. */
  static Map<String, String> watched(Registry registry) {
    Map<String, String> out = new LinkedHashMap<>();
    boolean mux =
        registry.stream().anyMatch(m -> m.id().name().equals(DynoMetrics.MUX_QUEUE_DELAY));
    String meter = mux ? DynoMetrics.MUX_QUEUE_DELAY : DynoMetrics.POOL_BORROW;
    long[] b = borrowBuckets(registry, meter);
    Histogram borrow = Latencies.histogram();
    for (int i = 0; i < b.length; i++) {
      if (b[i] > 0)
        borrow.recordValueWithCount(
            Latencies.clamp(TimeUnit.NANOSECONDS.toMicros(PercentileBuckets.get(i))), b[i]);
    }
    double[] totals = borrowTotals(registry, meter);
    // Dyno's pool does not time a borrow that finds a free connection: it counts it as 0 ns. Only
    // borrows that waited are timed, so p50/p99 are small by construction while few borrows wait.
    // On the multiplexed transport the borrow is a lease; the wait is on the shared connection.
    out.put(
        "borrow delay",
        String.format(
            "mean %.3f ms, p50 %.3f ms, p99 %.3f ms (%d "
                + (mux
                    ? "requests; multiplexed: the time from submit to the write that carried each request, every one timed)"
                    : "borrows; a borrow that found a free connection is counted as 0, not timed; only waits are timed)"),
            totals[0] == 0 ? 0 : totals[1] / totals[0] / 1e6,
            Latencies.percentile(borrow, 0.50) / 1000.0,
            Latencies.percentile(borrow, 0.99) / 1000.0,
            (long) totals[0]));
    long ops = 0;
    double totalNanos = 0;
    long failures = 0;
    long failovers = 0;
    long retries = 0;
    long timeouts = 0;
    long writes = 0;
    long writtenCommands = 0;
    for (Meter m : (Iterable<Meter>) registry.stream()::iterator) {
      String n = m.id().name();
      if (n.equals(DynoMetrics.MUX_WRITE_COMMANDS) && m instanceof DistributionSummary d) {
        writes += d.count();
        writtenCommands += d.totalAmount();
      } else if (n.equals(DynoMetrics.OP_LATENCY) && m instanceof Timer t) {
        ops += t.count();
        totalNanos += t.totalTime();
        String outcome = tag(m, "outcome");
        if (outcome != null && !outcome.equals("success")) failures += t.count();
      } else if (n.equals(DynoMetrics.OP_FAILOVERS) && m instanceof Counter c) {
        failovers += c.count();
      } else if (n.equals(DynoMetrics.OP_RETRIES) && m instanceof Counter c) {
        retries += c.count();
      } else if ((n.equals(DynoMetrics.POOL_BORROW_TIMEOUTS)
              || n.equals(DynoMetrics.MUX_IN_FLIGHT_LIMIT_TIMEOUTS))
          && m instanceof Counter c) {
        timeouts += c.count();
      }
    }
    out.put(
        "operations",
        String.format(
            "%d, mean latency %.3f ms, failed %d",
            ops, ops == 0 ? 0 : totalNanos / ops / 1e6, failures));
    out.put("failovers", Long.toString(failovers));
    out.put("retries", Long.toString(retries));
    out.put("borrow timeouts", Long.toString(timeouts));
    if (writes > 0) {
      out.put(
          "commands per write",
          String.format(
              "%.1f (%d commands in %d writes to the nodes)",
              (double) writtenCommands / writes, writtenCommands, writes));
    }
    long[] hedges = new long[3];
    for (Meter m : (Iterable<Meter>) registry.stream()::iterator) {
      if (m.id().name().equals(DynoMetrics.HEDGES) && m instanceof Counter c) {
        String result = tag(m, "result");
        int i = "sent".equals(result) ? 0 : "won".equals(result) ? 1 : 2;
        hedges[i] += c.count();
      }
    }
    if (hedges[0] > 0) {
      out.put(
          "hedged reads",
          String.format(
              "%d sent, %d answered first, %d late answers dropped",
              hedges[0], hedges[1], hedges[2]));
    }
    return out;
  }

  static String tag(Meter m, String key) {
    for (Tag t : m.id().tags()) {
      if (t.key().equals(key)) return t.value();
    }
    return null;
  }
}
