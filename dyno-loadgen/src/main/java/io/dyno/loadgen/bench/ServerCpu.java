package io.dyno.loadgen.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * CPU time of the server processes a target started (Linux: {@code utime + stime} of
 * {@code /proc/<pid>/stat}, every thread of the process, in clock ticks of {@code getconf CLK_TCK}).
 * The bench reads it when the measured part of a run begins and when its load has stopped, and
 * divides by the operations the client completed: {@link Use}.
 *
 * <p>The figure includes what the servers do when idle (Dynomite's stats and gossip timers, Redis's
 * cron), the same for every variant and small beside the load; the tick (normally 10 ms) bounds its
 * resolution, so runs should last seconds, not milliseconds.
 */
public final class ServerCpu {
  /** A server process: its role ("dynomite", "redis") and a name for messages (e.g. the node's address). */
  public record Proc(String role, String name, long pid) {}

  private static volatile Long ticksPerSecond;

  private final Supplier<List<Proc>> processes;

  /** @param processes the current server processes (asked at every read, so a restarted node is noticed) */
  public ServerCpu(Supplier<List<Proc>> processes) {
    this.processes = processes;
  }

  /** CPU seconds per process at one moment, or why they could not be read. */
  public record Reading(Map<Proc, Double> seconds, String unavailable) {}

  /** Every process's CPU seconds so far; never throws (a failure becomes the reading's reason). */
  public Reading read() {
    try {
      double hz = ticksPerSecond();
      Map<Proc, Double> m = new LinkedHashMap<>();
      for (Proc p : processes.get()) {
        if (p.pid() <= 0) {
          return new Reading(Map.of(), p.role() + " of " + p.name() + " is not running");
        }
        m.put(p, cpuTicks(p.pid()) / hz);
      }
      return m.isEmpty() ? new Reading(Map.of(), "no server processes") : new Reading(m, null);
    } catch (RuntimeException e) {
      return new Reading(Map.of(), e.getMessage());
    }
  }

  /**
   * What the processes used between two readings, per {@code ops} operations. n/a when either
   * reading failed or the processes changed (a node restarted: its new process's time started at 0).
   */
  public static Use between(Reading before, Reading after, long ops) {
    if (before.unavailable() != null) return Use.na("at the start: " + before.unavailable());
    if (after.unavailable() != null) return Use.na("at the end: " + after.unavailable());
    if (!before.seconds().keySet().equals(after.seconds().keySet())) {
      return Use.na("server processes changed during the run (a node restarted)");
    }
    if (ops <= 0) return Use.na("no operations completed");
    Map<String, Double> byRole = new LinkedHashMap<>();
    after
        .seconds()
        .forEach((p, s) -> byRole.merge(p.role(), s - before.seconds().get(p), Double::sum));
    return new Use(
        byRole.getOrDefault("dynomite", 0.0),
        byRole.getOrDefault("redis", 0.0),
        ops,
        after.seconds().size(),
        null);
  }

  /** {@code utime + stime} of process {@code pid}, in clock ticks. */
  static long cpuTicks(long pid) {
    Path stat = Path.of("/proc/" + pid + "/stat");
    String s;
    try {
      s = Files.readString(stat, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot read " + stat + " (process gone, or not Linux): " + e.getMessage(), e);
    }
    return parseTicks(s, pid);
  }

  /** Fields 14 (utime) and 15 (stime) of a {@code /proc/<pid>/stat} line; the name (field 2) may hold spaces and ')'. */
  static long parseTicks(String stat, long pid) {
    int close = stat.lastIndexOf(')');
    String[] f = close < 0 ? new String[0] : stat.substring(close + 1).trim().split(" +");
    // f[0] is field 3 (state), so field n is f[n - 3].
    if (f.length < 13) {
      throw new IllegalStateException("/proc/" + pid + "/stat: unexpected format: " + stat.trim());
    }
    try {
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (NumberFormatException e) {
      throw new IllegalStateException(
          "/proc/" + pid + "/stat: utime/stime not numbers: " + f[11] + " " + f[12], e);
    }
  }

  /** {@code getconf CLK_TCK} (asked once: it is fixed for the kernel). */
  static double ticksPerSecond() {
    Long t = ticksPerSecond;
    if (t != null) return t;
    try {
      Process p =
          new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("getconf CLK_TCK failed: " + out);
      }
      t = Long.parseLong(out);
      if (t <= 0) throw new IllegalStateException("getconf CLK_TCK gave " + t);
    } catch (IOException | NumberFormatException e) {
      throw new IllegalStateException("getconf CLK_TCK: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running getconf CLK_TCK", e);
    }
    ticksPerSecond = t;
    return t;
  }

  /**
   * Server CPU of one run: seconds of the dynomite and redis-server processes, and per operation in
   * µs. {@code unavailable} says why it is n/a (then the numbers are 0).
   */
  public record Use(
      double dynomiteSeconds, double redisSeconds, long ops, int processes, String unavailable) {
    public static Use na(String reason) {
      return new Use(0, 0, 0, 0, reason);
    }

    public boolean available() {
      return unavailable == null;
    }

    /** Both roles, µs per operation. */
    public double microsPerOp() {
      return dynomiteMicrosPerOp() + redisMicrosPerOp();
    }

    public double dynomiteMicrosPerOp() {
      return ops == 0 ? 0 : dynomiteSeconds * 1e6 / ops;
    }

    public double redisMicrosPerOp() {
      return ops == 0 ? 0 : redisSeconds * 1e6 / ops;
    }

    /** For the JSON report: the numbers, or "n/a (reason)". */
    public Object asJson() {
      if (!available()) return "n/a (" + unavailable + ")";
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("microsPerOp", round2(microsPerOp()));
      m.put("dynomiteMicrosPerOp", round2(dynomiteMicrosPerOp()));
      m.put("redisMicrosPerOp", round2(redisMicrosPerOp()));
      m.put("dynomiteSeconds", round2(dynomiteSeconds));
      m.put("redisSeconds", round2(redisSeconds));
      m.put("ops", ops);
      m.put("processes", processes);
      return m;
    }

    /** "41.2 us/op (dynomite 30.1 + redis 11.1; 5.31 s CPU of 12 processes over 129000 ops)" or "n/a (reason)". */
    @Override
    public String toString() {
      if (!available()) return "n/a (" + unavailable + ")";
      return String.format(
          Locale.ROOT,
          "%.1f us/op (dynomite %.1f + redis %.1f; %.2f s CPU of %d processes over %d ops)",
          microsPerOp(),
          dynomiteMicrosPerOp(),
          redisMicrosPerOp(),
          dynomiteSeconds + redisSeconds,
          processes,
          ops);
    }

    private static double round2(double v) {
      return Math.round(v * 100) / 100.0;
    }
  }
}
