package io.dyno.loadgen.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * CPU time of the client process: this JVM ({@code OperatingSystemMXBean#getProcessCpuTime}, every
 * thread: the driver's, the bench's callers, JIT compiler and GC). The bench reads it when the
 * measured part of a run begins and when its load has stopped, and divides by the operations
 * completed: {@link Use}.
 *
 * <p>It is the client's only while nothing else runs in the JVM meanwhile. Drivers compared in one
 * run take turns, each with a fresh client closed before the next starts, so each window holds one
 * driver. Servers embedded in the JVM (the companion cluster) are the exception the target names:
 * the CPU of its threads ({@code serverThreadPrefix}) is measured per thread and taken out.
 */
public final class ClientCpu {
  private final String serverThreadPrefix;

  /** @param serverThreadPrefix names of this JVM's threads that serve the cluster; null: none */
  public ClientCpu(String serverThreadPrefix) {
    this.serverThreadPrefix = serverThreadPrefix;
  }

  /** The process's CPU and, by thread id, that of the server threads; or why they could not be read. */
  public record Reading(long processNanos, Map<Long, Long> serverThreadNanos, String unavailable) {}

  /** Now; never throws (a failure becomes the reading's reason). */
  public Reading read() {
    try {
      long process =
          ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class).getProcessCpuTime();
      if (process < 0) {
        return new Reading(0, Map.of(), "this JVM does not report its process CPU time");
      }
      Map<Long, Long> servers = new HashMap<>();
      if (serverThreadPrefix != null) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isThreadCpuTimeSupported() || !threads.isThreadCpuTimeEnabled()) {
          return new Reading(
              0, Map.of(), "the servers run in this JVM and it does not time its threads' CPU");
        }
        for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
          if (t == null || !t.getThreadName().startsWith(serverThreadPrefix)) continue;
          long ns = threads.getThreadCpuTime(t.getThreadId());
          if (ns >= 0) servers.put(t.getThreadId(), ns);
        }
      }
      return new Reading(process, servers, null);
    } catch (RuntimeException e) {
      return new Reading(0, Map.of(), "cannot read this JVM's CPU time: " + e);
    }
  }

  /**
   * What the client used between two readings, per {@code ops} operations: the process's CPU less
   * what the server threads used (a server thread started in between counts from 0).
   */
  public static Use between(Reading before, Reading after, long ops) {
    if (before.unavailable() != null) return Use.na("at the start: " + before.unavailable());
    if (after.unavailable() != null) return Use.na("at the end: " + after.unavailable());
    if (ops <= 0) return Use.na("no operations completed");
    long servers = 0;
    for (Map.Entry<Long, Long> e : after.serverThreadNanos().entrySet()) {
      servers += e.getValue() - before.serverThreadNanos().getOrDefault(e.getKey(), 0L);
    }
    long process = after.processNanos() - before.processNanos();
    return new Use((process - servers) / 1e9, servers / 1e9, ops, null);
  }

  /**
   * Client CPU of one run: seconds, and µs per operation; {@code serverThreadSeconds} is what was
   * taken out for servers embedded in the JVM. {@code unavailable} says why it is n/a.
   */
  public record Use(double seconds, double serverThreadSeconds, long ops, String unavailable) {
    public static Use na(String reason) {
      return new Use(0, 0, 0, reason);
    }

    public boolean available() {
      return unavailable == null;
    }

    public double microsPerOp() {
      return ops == 0 ? 0 : seconds * 1e6 / ops;
    }

    /** For the JSON report: the numbers, or "n/a (reason)". */
    public Object asJson() {
      if (!available()) return "n/a (" + unavailable + ")";
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("microsPerOp", Math.round(microsPerOp() * 100) / 100.0);
      m.put("seconds", Math.round(seconds * 1000) / 1000.0);
      m.put("embeddedServerSeconds", Math.round(serverThreadSeconds * 1000) / 1000.0);
      m.put("ops", ops);
      return m;
    }

    /** "15.4 us/op (2.31 s CPU of this JVM over 150000 ops)" or "n/a (reason)". */
    @Override
    public String toString() {
      if (!available()) return "n/a (" + unavailable + ")";
      return String.format(
          Locale.ROOT,
          "%.1f us/op (%.2f s CPU of this JVM over %d ops%s)",
          microsPerOp(),
          seconds,
          ops,
          serverThreadSeconds > 0
              ? String.format(
                  Locale.ROOT, "; the embedded servers' %.2f s taken out", serverThreadSeconds)
              : "");
    }
  }
}
