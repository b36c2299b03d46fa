package io.dyno.e2e.faults;

import static io.dyno.e2e.faults.Figures.ms;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The tables a fault run prints: its summary, one row per client (the figures the must-shows are
 * checked against, as a Markdown table for docs/node-faults.md), then its seconds side by side.
 */
final class FaultReport {
  private FaultReport() {}

  static String render(String title, FaultRun run, List<Figures> figures) {
    StringBuilder sb = new StringBuilder();
    sb.append("\n== ").append(title).append(" ==\n");
    sb.append(run.timings)
        .append("; the fault began at ")
        .append(run.faultBegan)
        .append('\n');
    sb.append(
        "| client | healthy ops/s | slowest second from the fault (% of healthy) | ops/s in fault"
            + " (% of healthy) | failed reads | failed writes (not sent to the node) | read p99 healthy"
            + " / fault / steered ms | write p99 healthy / fault / steered ms | steered after | back in"
            + " local rack: keys not written while away (all keys) | slow ops (>100 ms) healthy / fault"
            + " | out of rotation |\n");
    sb.append("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < figures.size(); i++) {
      Figures f = figures.get(i);
      sb.append(row(f, run.watch(i).seenDown(f.marks.faultMs()))).append('\n');
    }
    List<FaultLoad> loads = run.loads;
    for (int i = 0; i < figures.size(); i++) {
      Figures f = figures.get(i);
      long[] away = f.callsAfterOnKeysWrittenAway();
      sb.append(String.format(
          Locale.ROOT,
          "%s: %d keys SET while the node was away; after the fault %d of %d calls were on them;"
              + " %d calls failed in the warm-up (not measured); %d failed reads left out, the"
              + " machine or a healthy node they tried having stalled %d ms or more in their"
              + " lives; %s%n",
          f.client,
          loads.get(i).keysWrittenAway(),
          away[0],
          away[1],
          f.failedInWarmUp(),
          f.failedReadsExcused(),
          Figures.STALL_EXCUSING_FAILURE_MS,
          pacing(loads.get(i), f)));
    }
    if (!figures.isEmpty()) {
      Figures.Marks m = figures.get(0).marks;
      sb.append(stallLine(
          "machine stalls",
          "a thread woken every " + MachineStalls.TICK_MS + " ms",
          run.stalls.describe(m.healthyMs(), m.endMs(), 100, m.faultMs())));
      sb.append(stallLine(
          "healthy nodes' own stalls",
          "a PING every " + NodeStalls.TICK_MS + " ms on each node's port",
          run.nodeStalls.describe(m.healthyMs(), m.endMs(), 100, m.faultMs())));
    }
    sb.append(finely(figures));
    for (FaultLoad l : loads) {
      if (!l.failures().isEmpty())
        sb.append(l.name).append(" failures: ").append(l.failures()).append('\n');
      if (!l.samples().isEmpty())
        sb.append(l.name)
            .append(" first: ")
            .append(String.join("\n    ", l.samples()))
            .append('\n');
    }
    sb.append(perSecond(figures));
    return sb.toString();
  }

  /** The paced rate, how close the healthy phase came to it, and the slots dropped behind it. */
  private static String pacing(FaultLoad l, Figures f) {
    if (l.rate() == 0) return "unpaced";
    return String.format(
        Locale.ROOT,
        "paced to %d ops/s (healthy %.0f %% of it), %d slots dropped by threads behind schedule",
        l.rate(),
        100 * f.healthyOpsPerSecond() / l.rate(),
        l.droppedSlots());
  }

  static String row(Figures f, Map<String, String> seenDown) {
    Figures.Marks m = f.marks;
    double healthy = f.healthyOpsPerSecond();
    Figures.Second slowest = f.slowestSecondFromFault();
    double inFault = f.opsPerSecond(m.faultMs(), m.afterMs());
    long steered = f.steeredAfterMs();
    long steeredFrom = steered < 0 ? m.afterMs() : m.faultMs() + steered;
    long back = f.backInLocalRackMs(true);
    long backAll = f.backInLocalRackMs(false);
    return String.format(
        Locale.ROOT,
        "| %s | %.0f | %s | %.0f (%.0f %%) | %d | %d (%d) | %s / %s / %s | %s / %s / %s | %s | %s | %d / %d | %s |",
        f.client,
        healthy,
        slowest == null
            ? "-"
            : String.format(
                Locale.ROOT,
                "%d (%.0f %%) at +%d s",
                slowest.ops(),
                100.0 * slowest.ops() / healthy,
                slowest.index()),
        inFault,
        100 * inFault / healthy,
        f.failedReads(),
        f.failedWrites(),
        f.failedWritesNotSentToFaulted(),
        ms(f.healthyP99Ms(true)),
        ms(f.p99Ms(m.faultMs(), m.afterMs(), true)),
        ms(f.p99Ms(steeredFrom, m.afterMs(), true)),
        ms(f.healthyP99Ms(false)),
        ms(f.p99Ms(m.faultMs(), m.afterMs(), false)),
        ms(f.p99Ms(steeredFrom, m.afterMs(), false)),
        steered < 0 ? "never" : String.format(Locale.ROOT, "%.1f s", steered / 1000.0),
        seconds(back) + " (" + seconds(backAll) + ")",
        f.slowInHealthy(),
        f.seconds.stream()
            .filter(s -> s.index() >= 0)
            .mapToLong(Figures.Second::slow)
            .sum(),
        seenDown.isEmpty() ? "none" : seenDown.toString());
  }

  private static String seconds(long ms) {
    if (ms == Figures.TOO_FEW_CALLS) return "too few calls";
    return ms < 0 ? "not within the run" : String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
  }

  /**
   * Ops/s in 100 ms steps over the fault's first 2 s and the 2 s after its end: whether a slow
   * second is the fault's detection (its first few hundred ms) or a stall spread over the second.
   */
  static String finely(List<Figures> figures) {
    StringBuilder sb = new StringBuilder();
    for (Figures f : figures) {
      Figures.Marks m = f.marks;
      sb.append(f.client)
          .append(" ops/s by 100 ms, fault's first 2 s: ")
          .append(Arrays.toString(f.opsPerSecondBy(m.faultMs(), 100, 20)))
          .append("; after its end: ")
          .append(Arrays.toString(f.opsPerSecondBy(m.afterMs(), 100, 20)))
          .append('\n');
    }
    return sb.toString();
  }

  /** The run's seconds, one line each, every client side by side: ops, failed reads/writes, p99s. */
  static String perSecond(List<Figures> figures) {
    StringBuilder sb = new StringBuilder("   s");
    for (Figures f : figures) {
      sb.append(String.format(
          Locale.ROOT, " | %-43s", f.client + ": ops fR fW(sent) p99R p99W slow(node) node stall"));
    }
    sb.append('\n');
    int rows = figures.stream().mapToInt(f -> f.seconds.size()).min().orElse(0);
    for (int r = 0; r < rows; r++) {
      Figures.Second first = figures.get(0).seconds.get(r);
      String phase = first.index() < 0 ? "h" : phaseOf(figures.get(0), first.index());
      sb.append(String.format(Locale.ROOT, "%3d%s", first.index(), phase));
      for (Figures f : figures) {
        Figures.Second s = f.seconds.get(r);
        sb.append(String.format(
            Locale.ROOT,
            " | %5d %3d %3d(%3d) %6s %6s %4d(%4d) %5d %5d",
            s.ops(),
            s.failedReads(),
            s.failedWrites(),
            s.failedWritesSentToFaulted(),
            ms(s.readP99Ms()),
            ms(s.writeP99Ms()),
            s.slow(),
            s.slowViaFaulted(),
            s.servedByFaulted(),
            s.longestStallMs()));
      }
      sb.append('\n');
    }
    return sb.append(
            "(h healthy, f fault, a after; fR/fW failed reads/writes, (sent) those sent to the faulted node;"
                + " slow: over 100 ms, (node) of them with an attempt on the faulted node and no machine"
                + " stall of 50 ms or more in their lives; node: answers from it; stall: the longest"
                + " stall in the second, of the machine or a healthy node, ms)\n")
        .toString();
  }

  private static String phaseOf(Figures f, int index) {
    long end = f.marks.faultMs() + (index + 1) * 1000L;
    return end <= f.marks.afterMs() ? "f" : "a";
  }

  /** One line of the stalls of 100 ms or more from the healthy phase on, {@code how} measured. */
  private static String stallLine(String what, String how, List<String> stalls) {
    return what + " of 100 ms or more from the healthy phase on (" + how + "): "
        + (stalls.isEmpty() ? "none" : String.join(", ", stalls)) + "\n";
  }
}
