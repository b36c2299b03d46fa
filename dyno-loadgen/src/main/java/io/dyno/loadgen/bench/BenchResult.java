package io.dyno.loadgen.bench;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything a run measured: the time series, the totals and the per-node split. Latencies in µs.
 * {@code variant} is the name the user gave (e.g. {@code dyno:pipeline=3-10}), {@code driver} the client library;
 * {@code serverCpu} the CPU the server processes used in the measured part, per operation (or n/a with the reason),
 * {@code clientCpu} the client process's (this JVM's, less servers embedded in it: {@link ClientCpu});
 * {@code callers} what called the driver (platform or virtual threads, {@link Callers#describe}), {@code callerCount}
 * how many, {@code blockedCallers} how many were still inside a call {@link Callers#GRACE} after the end, and
 * {@code stall} says so in words (empty when none).
 */
public record BenchResult(
    String variant,
    int round,
    String driver,
    String target,
    Map<String, String> config,
    long startedAtMillis,
    double backfillSeconds,
    long backfilledKeys,
    double seconds,
    long reads,
    long writes,
    long errors,
    long p50Micros,
    long p95Micros,
    long p99Micros,
    long p999Micros,
    long maxMicros,
    long readP99Micros,
    long writeP99Micros,
    long borrowP50Micros,
    long borrowP99Micros,
    List<Sample> samples,
    List<NodeStat> nodes,
    ServerCpu.Use serverCpu,
    ClientCpu.Use clientCpu,
    Map<String, Long> errorKinds,
    Map<String, String> driverSummary,
    long readP999Micros,
    long readMaxMicros,
    String callers,
    int callerCount,
    int blockedCallers,
    String stall) {

  public long ops() {
    return reads + writes;
  }

  public double opsPerSec() {
    return seconds <= 0 ? 0 : ops() / seconds;
  }

  public double errorRate() {
    long all = ops() + errors;
    return all == 0 ? 0 : (double) errors / all;
  }

  /** The final summary printed at the end of a run. */
  public String summaryText() {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(
        "== %s on %s: %.1fs, %d ops (%d reads, %d writes), %.0f ops/s, errors %d (%.3f%%)%n",
        variant, target, seconds, ops(), reads, writes, opsPerSec(), errors, errorRate() * 100));
    sb.append(String.format(
        "   latency p50 %s  p95 %s  p99 %s  p99.9 %s  max %s   (read p99 %s, p99.9 %s, max %s;"
            + " write p99 %s)%n",
        Sample.ms(p50Micros),
        Sample.ms(p95Micros),
        Sample.ms(p99Micros),
        Sample.ms(p999Micros),
        Sample.ms(maxMicros),
        Sample.ms(readP99Micros),
        Sample.ms(readP999Micros),
        Sample.ms(readMaxMicros),
        Sample.ms(writeP99Micros)));
    sb.append("   callers: ").append(callers).append('\n');
    if (!stall.isEmpty()) {
      sb.append("   ").append(stall).append('\n');
    }
    sb.append("   client CPU: ").append(clientCpu).append('\n');
    sb.append("   server CPU: ").append(serverCpu).append('\n');
    if (borrowP50Micros >= 0) {
      sb.append(String.format(
          "   borrow delay p50 %s  p99 %s%n",
          Sample.ms(borrowP50Micros), Sample.ms(borrowP99Micros)));
    }
    if (backfilledKeys > 0) {
      sb.append(String.format("   backfill: %d keys in %.1fs%n", backfilledKeys, backfillSeconds));
    }
    if (!nodes.isEmpty()) {
      sb.append(String.format(
          "   %-21s %-6s %16s %16s %16s %16s%n",
          "node", "rack", "client sent", "node received", "node forwarded", "its Redis ran"));
    }
    Set<String> reasons = new LinkedHashSet<>();
    for (NodeStat n : nodes) {
      sb.append(String.format(
          "   %-21s %-6s %16s %16s %16s %16s%n",
          n.node(),
          n.rack(),
          cell(n.clientRequests(), reasons),
          cell(n.serverRequests(), reasons),
          cell(n.serverForwarded(), reasons),
          cell(n.backendServed(), reasons)));
    }
    int i = 1;
    for (String r : reasons) {
      sb.append("   n/a[").append(i++).append("]: ").append(r).append('\n');
    }
    errorKinds.forEach(
        (k, v) -> sb.append("   error x").append(v).append(": ").append(k).append('\n'));
    driverSummary.forEach(
        (k, v) -> sb.append("   ").append(k).append(": ").append(v).append('\n'));
    return sb.toString();
  }

  /** A count for the console table: the number, or "n/a[k]" pointing at the k-th reason printed below the table. */
  private static String cell(Count c, Set<String> reasons) {
    if (c.available()) return Long.toString(c.value());
    reasons.add(c.unavailable());
    int k = 1;
    for (String r : reasons) {
      if (r.equals(c.unavailable())) break;
      k++;
    }
    return "n/a[" + k + "]";
  }
}
