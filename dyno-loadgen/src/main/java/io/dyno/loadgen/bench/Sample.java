package io.dyno.loadgen.bench;

import java.util.Map;

/**
 * One progress interval (about a second) of a run. Latencies in microseconds; borrow values are
 * -1 when the driver has no pool to borrow from. Rate limits are the ones in force at the end of
 * the interval (0 = unlimited). {@code errorKinds} counts this interval's failures by kind and
 * {@code nodeRequests} what the client sent to each node in it (empty when the driver does not count).
 */
public record Sample(
    double t,
    double seconds,
    long reads,
    long writes,
    long errors,
    long p50Micros,
    long p99Micros,
    long maxMicros,
    long borrowP50Micros,
    long borrowP99Micros,
    double readRateLimit,
    double writeRateLimit,
    long readP50Micros,
    long readP99Micros,
    long writeP50Micros,
    long writeP99Micros,
    Map<String, Long> errorKinds,
    Map<String, Long> nodeRequests) {

  /** A sample without the per-operation, per-error-kind and per-node split (tests, older callers). */
  public Sample(
      double t,
      double seconds,
      long reads,
      long writes,
      long errors,
      long p50Micros,
      long p99Micros,
      long maxMicros,
      long borrowP50Micros,
      long borrowP99Micros,
      double readRateLimit,
      double writeRateLimit) {
    this(
        t,
        seconds,
        reads,
        writes,
        errors,
        p50Micros,
        p99Micros,
        maxMicros,
        borrowP50Micros,
        borrowP99Micros,
        readRateLimit,
        writeRateLimit,
        0,
        0,
        0,
        0,
        Map.of(),
        Map.of());
  }

  public long ops() {
    return reads + writes;
  }

  public double opsPerSec() {
    return seconds <= 0 ? 0 : ops() / seconds;
  }

  public double readsPerSec() {
    return seconds <= 0 ? 0 : reads / seconds;
  }

  public double writesPerSec() {
    return seconds <= 0 ? 0 : writes / seconds;
  }

  /** The live progress line, e.g. {@code [dyno] t=12s ops/s=10234 (r=8190 w=2044) p50=0.41ms p99=2.30ms ...}. */
  public String progressLine(String driver) {
    StringBuilder sb = new StringBuilder();
    sb.append('[')
        .append(driver)
        .append("] t=")
        .append(String.format("%.0fs", t))
        .append(" ops/s=")
        .append(Math.round(opsPerSec()))
        .append(" (r=")
        .append(Math.round(readsPerSec()))
        .append(" w=")
        .append(Math.round(writesPerSec()))
        .append(')')
        .append(" p50=")
        .append(ms(p50Micros))
        .append(" p99=")
        .append(ms(p99Micros))
        .append(" errors=")
        .append(errors);
    if (borrowP50Micros >= 0) {
      sb.append(" borrow p50=")
          .append(ms(borrowP50Micros))
          .append(" p99=")
          .append(ms(borrowP99Micros));
    }
    sb.append(" limit r=").append(rate(readRateLimit)).append(" w=").append(rate(writeRateLimit));
    return sb.toString();
  }

  static String ms(long micros) {
    return String.format("%.2fms", micros / 1000.0);
  }

  static String rate(double r) {
    return r <= 0 ? "unlimited" : SettingValues.fmtRate(r);
  }
}
