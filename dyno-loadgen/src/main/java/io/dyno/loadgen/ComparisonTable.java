package io.dyno.loadgen;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A comparison's rows as the text table printed at its end (the report shows the same rows as data). */
final class ComparisonTable {
  private ComparisonTable() {}

  /** The rows as a table, then the notes its n/a marks and columns refer to. */
  static String of(List<Comparison.Row> rows) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(
        "%n%-34s %6s %9s %17s %8s %13s %8s %7s %7s %10s %8s %10s %10s %8s  %-26s  %s%n",
        "variant",
        "rounds",
        "ops/s",
        "(min-max)",
        "vs " + Comparison.BASELINE,
        "(min-max)",
        "vs plain",
        "p50 ms",
        "p99 ms",
        "cli us/op",
        "errors",
        "forwarded",
        "srv us/op",
        "cpu vs",
        "(server CPU split, us/op)",
        "note"));
    List<String> cpuNa = new ArrayList<>();
    for (Comparison.Row r : rows) {
      String split = r.serverCpuSplit();
      if (r.serverCpuMicrosPerOp() == null) {
        if (!cpuNa.contains(split)) cpuNa.add(split);
        split = "n/a[" + (cpuNa.indexOf(split) + 1) + "]";
      }
      sb.append(String.format(
          "%-34s %6d %9.0f %17s %8s %13s %8s %7.2f %7.2f %10s %8s %10s %10s %8s  %-26s  %s%n",
          r.variant(),
          r.rounds(),
          r.opsPerSec(),
          String.format("(%.0f-%.0f)", r.minOpsPerSec(), r.maxOpsPerSec()),
          fmt(r.ratioToBaseline()),
          r.minRatioToBaseline() == null
              ? ""
              : String.format("(%.2f-%.2f)", r.minRatioToBaseline(), r.maxRatioToBaseline()),
          fmt(r.ratioToPlainSameDriver()),
          r.p50Ms(),
          r.p99Ms(),
          r.clientCpuMicrosPerOp() == null
              ? "n/a"
              : String.format(Locale.ROOT, "%.1f", r.clientCpuMicrosPerOp()),
          r.errors(),
          r.forwarded(),
          r.serverCpuMicrosPerOp() == null
              ? "n/a"
              : String.format(Locale.ROOT, "%.1f", r.serverCpuMicrosPerOp()),
          fmt(r.serverCpuVsBaseline()),
          split,
          r.note()));
    }
    for (int i = 0; i < cpuNa.size(); i++) {
      String why = cpuNa.get(i);
      if (why.startsWith("n/a (") && why.endsWith(")")) why = why.substring(5, why.length() - 1);
      sb.append("server CPU n/a[").append(i + 1).append("]: ").append(why).append('\n');
    }
    rows.stream()
        .filter(
            r -> r.clientCpuMicrosPerOp() == null && !r.clientCpu().startsWith("n/a (not measured"))
        .forEach(r -> sb.append("client CPU of ")
            .append(r.variant())
            .append(": ")
            .append(r.clientCpu())
            .append('\n'));
    sb.append(
        "cli us/op: CPU time of the client process (this JVM, less servers embedded in it) in the measured"
            + " part per operation (median over rounds); drivers take turns in the JVM, each window holds one\n");
    sb.append(
        "srv us/op: CPU time of the dynomite and redis-server processes in the measured part per operation "
            + "(median over rounds); cpu vs: its ratio to " + Comparison.BASELINE
            + " of the same round (below 1 = cheaper for the servers)\n");
    return sb.toString();
  }

  private static String fmt(Double d) {
    return d == null ? "-" : String.format("%.2f", d);
  }
}
