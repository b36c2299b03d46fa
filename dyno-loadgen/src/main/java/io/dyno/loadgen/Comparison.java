package io.dyno.loadgen;

import io.dyno.loadgen.bench.Bench;
import io.dyno.loadgen.bench.BenchConfig;
import io.dyno.loadgen.bench.BenchResult;
import io.dyno.loadgen.bench.ClientCpu;
import io.dyno.loadgen.bench.Count;
import io.dyno.loadgen.bench.Driver;
import io.dyno.loadgen.bench.NodeStat;
import io.dyno.loadgen.bench.ServerCpu;
import io.dyno.loadgen.drivers.Drivers;
import io.dyno.loadgen.drivers.DynoDriver;
import io.dyno.loadgen.drivers.RedisBenchmark;
import io.dyno.loadgen.target.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Peer comparison in one run: the same workload against the same cluster, for every variant (a
 * driver, optionally with its own settings, e.g. {@code dyno:pipeline=3-10} or
 * {@code dyno:consistency=dc_quorum}; several settings joined with {@code +}), plus
 * {@code redis-benchmark} when it is on the PATH.
 *
 * <p>Method: the keys are backfilled once; then {@code rounds} interleaved rounds (A, B, C, C, B, A,
 * ...: even rounds reversed, so that neither position in a round favours a variant), each variant
 * in each round with a fresh client, a warm-up that is not recorded, then the measured run. Per variant: the median over the rounds and the spread (min–max); ratios are taken
 * per round against plain Jedis pools of the same round (so slow phases of a shared machine hit both
 * sides), then their median and spread. redis-benchmark cannot mix commands: it runs GET and SET
 * separately, reported as two rows that are not comparable with the 80/20 mix.
 */
public final class Comparison {
  public static final String BASELINE = "jedis-pools";

  /**
   * One row of the ratio table. Ratios are null where there is nothing to compare with;
   * {@code forwarded} is a percentage or "n/a (reason)". Server CPU (µs of the dynomite and
   * redis-server processes per operation) is the median over rounds, null when not measured;
   * {@code serverCpuVsBaseline} the median of per-round ratios (below 1: cheaper for the servers);
   * {@code serverCpuSplit} the medians of the dynomite and redis parts, or "n/a (reason)". Client
   * CPU (µs of the client process per operation, {@link ClientCpu}) is the median over rounds, null
   * when not measured, then {@code clientCpu} says why.
   */
  public record Row(
      String variant,
      int rounds,
      double opsPerSec,
      double minOpsPerSec,
      double maxOpsPerSec,
      Double ratioToBaseline,
      Double minRatioToBaseline,
      Double maxRatioToBaseline,
      Double ratioToPlainSameDriver,
      double p50Ms,
      double p99Ms,
      String errors,
      String forwarded,
      Double serverCpuMicrosPerOp,
      Double serverCpuVsBaseline,
      String serverCpuSplit,
      Double clientCpuMicrosPerOp,
      String clientCpu,
      String note) {}

  private record Variant(String label, String driver, BenchConfig config) {}

  private final Target target;
  private final BenchConfig base;
  private final int connsPerNode;
  private final Consumer<String> out;
  private final List<BenchResult> results = new ArrayList<>();
  private final List<Row> rows = new ArrayList<>();
  private final Map<String, Object> redisBenchmark = new LinkedHashMap<>();
  private int rounds = 1;
  private Duration warmup = Duration.ZERO;

  public Comparison(Target target, BenchConfig base, int connsPerNode, Consumer<String> out) {
    this.target = target;
    this.base = base;
    this.connsPerNode = connsPerNode;
    this.out = out;
  }

  /** Interleaved rounds (default 1). */
  public Comparison rounds(int n) {
    if (n < 1) throw new IllegalArgumentException("setting rounds: must be >= 1, was " + n);
    this.rounds = n;
    return this;
  }

  /** Unrecorded load before every measured run (default none). */
  public Comparison warmup(Duration d) {
    this.warmup = d == null ? Duration.ZERO : d;
    return this;
  }

  public List<BenchResult> results() {
    return results;
  }

  public List<Row> rows() {
    return rows;
  }

  public Map<String, Object> redisBenchmark() {
    return redisBenchmark;
  }

  /** The method, for the report. */
  public Map<String, Object> method() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(
        "rounds",
        rounds
            + " interleaved (every variant once per round: odd rounds in the order given, even rounds reversed)");
    m.put(
        "warmup",
        warmup.toMillis() / 1000.0
            + " s per variant per round, not recorded, fresh client each time");
    m.put("measured", base.duration.toMillis() / 1000.0 + " s per variant per round");
    m.put(
        "statistics",
        "median over rounds, spread min-max; ratios per round against " + BASELINE
            + " of the same round");
    return m;
  }

  public void run(List<String> variantSpecs) throws Exception {
    List<Variant> variants = new ArrayList<>();
    boolean redisBench = false;
    for (String v : variantSpecs) {
      if (v.equals("redis-benchmark")) {
        redisBench = true;
      } else {
        Variant parsed = parse(v);
        if (variants.stream().anyMatch(x -> x.label().equals(v))) {
          throw new IllegalArgumentException(
              "comparison variant \"" + v + "\" is listed twice (use --rounds to repeat it)");
        }
        variants.add(parsed);
      }
    }
    if (base.backfill && !variants.isEmpty()) {
      Variant first = variants.get(0);
      out.accept("---- backfill (" + first.driver() + ") ----");
      try (Driver d = Drivers.create(
          first.driver(), target, base.consistency, connsPerNode, Duration.ofSeconds(2))) {
        new Bench(base, d, out).label("backfill").backfillOnly();
      }
    }
    Map<String, List<BenchResult>> byVariant = new LinkedHashMap<>();
    List<Map<String, RedisBenchmark.Result>> rbRounds = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      // Odd rounds in the order given, even rounds reversed: on a shared machine the second run of
      // a
      // round was seen 15-20 % faster than the first, more than some differences being measured.
      List<Variant> order = new ArrayList<>(variants);
      if (round % 2 == 0) Collections.reverse(order);
      for (Variant v : order) {
        out.accept("---- " + v.label() + " (round " + round + " of " + rounds + ") ----");
        try (Driver d = Drivers.create(
            v.driver(),
            target,
            v.config().consistency,
            connsPerNode,
            Duration.ofSeconds(2),
            DynoDriver.Options.of(v.config()))) {
          Bench bench = new Bench(v.config(), d, out)
              .label(v.label())
              .round(round)
              .warmup(warmup)
              .targetName(target.describe())
              .serverCounters(target.serverCounters(), target.noServerCountersReason())
              .serverCpu(target.serverCpu(), target.noServerCpuReason())
              .clientCpu(new ClientCpu(target.serverThreadPrefix()));
          BenchResult r = bench.run();
          out.accept(r.summaryText());
          results.add(r);
          byVariant.computeIfAbsent(v.label(), k -> new ArrayList<>()).add(r);
        }
      }
      if (redisBench) {
        Map<String, RedisBenchmark.Result> rb = runRedisBenchmark(byVariant, round);
        if (rb != null) rbRounds.add(rb);
      }
    }
    List<BenchResult> baseline = byVariant.get(BASELINE);
    byVariant.forEach(
        (label, runs) -> rows.add(row(label, runs, baseline, byVariant.get(driverOf(label)))));
    if (!rbRounds.isEmpty()) {
      for (String cmd : List.of("GET", "SET")) {
        double[] rps = rbRounds.stream().mapToDouble(m -> m.get(cmd).rps()).toArray();
        double[] p50 = rbRounds.stream().mapToDouble(m -> m.get(cmd).p50Ms()).toArray();
        double[] p99 = rbRounds.stream().mapToDouble(m -> m.get(cmd).p99Ms()).toArray();
        long errorLines =
            rbRounds.stream().mapToLong(m -> m.get(cmd).errorLinesShown()).sum();
        RedisBenchmark.Result any = rbRounds.get(0).get(cmd);
        rows.add(new Row(
            "redis-benchmark -t " + cmd.toLowerCase() + " (" + any.clients() + " clients)",
            rbRounds.size(),
            median(rps),
            min(rps),
            max(rps),
            null,
            null,
            null,
            null,
            median(p50),
            median(p99),
            errorLines == 0 ? "none shown (-e)" : ">= " + errorLines + " (-e shows at most 1/s)",
            "n/a (redis-benchmark does not count per node)",
            null,
            null,
            "n/a (not measured for redis-benchmark)",
            null,
            "n/a (not measured for redis-benchmark)",
            cmd + " only, run on its own, " + any.clients() + " clients split over "
                + target.hosts().size() + " nodes (not the 80/20 mix; no ratio)"));
      }
    }
    out.accept(table());
  }

  private Variant parse(String v) {
    int colon = v.indexOf(':');
    String driverName = colon < 0 ? v : v.substring(0, colon);
    BenchConfig.Builder b = base.toBuilder().backfill(false);
    if (colon >= 0) {
      for (String kv : v.substring(colon + 1).split("\\+")) {
        int eq = kv.indexOf('=');
        if (eq <= 0) {
          throw new IllegalArgumentException(
              "comparison variant \"" + v + "\": expected driver:name=value[+name=value]");
        }
        b.set(kv.substring(0, eq), kv.substring(eq + 1));
      }
    }
    if (!Drivers.NAMES.contains(driverName) && !driverName.equals("jedis")) {
      throw new IllegalArgumentException("comparison variant \"" + v + "\": unknown driver \""
          + driverName + "\"; known: " + Drivers.NAMES + " and redis-benchmark");
    }
    return new Variant(v, driverName, b.build());
  }

  private static String driverOf(String label) {
    return label.contains(":") ? label.substring(0, label.indexOf(':')) : label;
  }

  private Row row(
      String label,
      List<BenchResult> runs,
      List<BenchResult> baseline,
      List<BenchResult> plainSameDriver) {
    double[] ops = runs.stream().mapToDouble(BenchResult::opsPerSec).toArray();
    Double ratio = null, minRatio = null, maxRatio = null, vsPlain = null;
    if (baseline != null && baseline.size() == runs.size()) {
      double[] r = new double[runs.size()];
      for (int i = 0; i < r.length; i++)
        r[i] = runs.get(i).opsPerSec() / baseline.get(i).opsPerSec();
      ratio = median(r);
      minRatio = min(r);
      maxRatio = max(r);
    }
    if (plainSameDriver != null
        && plainSameDriver.size() == runs.size()
        && plainSameDriver != runs) {
      double[] r = new double[runs.size()];
      for (int i = 0; i < r.length; i++)
        r[i] = runs.get(i).opsPerSec() / plainSameDriver.get(i).opsPerSec();
      vsPlain = median(r);
    }
    long errors = runs.stream().mapToLong(BenchResult::errors).sum();
    Double cpu = null, cpuRatio = null;
    String cpuSplit;
    Optional<ServerCpu.Use> missing =
        runs.stream().map(BenchResult::serverCpu).filter(u -> !u.available()).findFirst();
    if (missing.isPresent()) {
      cpuSplit = missing.get().toString();
    } else {
      cpu = median(runs.stream().mapToDouble(r -> r.serverCpu().microsPerOp()).toArray());
      cpuSplit = String.format(
          Locale.ROOT,
          "dynomite %.1f + redis %.1f",
          median(runs.stream()
              .mapToDouble(r -> r.serverCpu().dynomiteMicrosPerOp())
              .toArray()),
          median(
              runs.stream().mapToDouble(r -> r.serverCpu().redisMicrosPerOp()).toArray()));
      if (baseline != null
          && baseline.size() == runs.size()
          && baseline.stream()
              .allMatch(b -> b.serverCpu().available() && b.serverCpu().microsPerOp() > 0)) {
        double[] r = new double[runs.size()];
        for (int i = 0; i < r.length; i++)
          r[i] = runs.get(i).serverCpu().microsPerOp()
              / baseline.get(i).serverCpu().microsPerOp();
        cpuRatio = median(r);
      }
    }
    Optional<ClientCpu.Use> clientMissing =
        runs.stream().map(BenchResult::clientCpu).filter(u -> !u.available()).findFirst();
    Double clientCpu = clientMissing.isPresent()
        ? null
        : median(runs.stream().mapToDouble(r -> r.clientCpu().microsPerOp()).toArray());
    return new Row(
        label,
        runs.size(),
        median(ops),
        min(ops),
        max(ops),
        ratio,
        minRatio,
        maxRatio,
        vsPlain,
        median(runs.stream().mapToDouble(r -> r.p50Micros() / 1000.0).toArray()),
        median(runs.stream().mapToDouble(r -> r.p99Micros() / 1000.0).toArray()),
        Long.toString(errors),
        forwarded(runs),
        cpu,
        cpuRatio,
        cpuSplit,
        clientCpu,
        clientMissing.map(ClientCpu.Use::toString).orElse(""),
        tracingNote(runs, plainSameDriver, vsPlain));
  }

  /**
   * For a traced variant beside its driver untraced: the overhead in words (the ops/s ratio is the
   * median of per-round ratios, the latencies medians over rounds); empty otherwise.
   */
  static String tracingNote(List<BenchResult> runs, List<BenchResult> plain, Double vsPlain) {
    String mode = runs.get(0).config().getOrDefault("tracing", "off");
    if (mode.equals("off")
        || vsPlain == null
        || !"off".equals(plain.get(0).config().getOrDefault("tracing", "off"))) {
      return "";
    }
    double p50 = median(runs.stream().mapToDouble(r -> r.p50Micros() / 1000.0).toArray())
        - median(plain.stream().mapToDouble(r -> r.p50Micros() / 1000.0).toArray());
    double p99 = median(runs.stream().mapToDouble(r -> r.p99Micros() / 1000.0).toArray())
        - median(plain.stream().mapToDouble(r -> r.p99Micros() / 1000.0).toArray());
    return String.format(
        Locale.ROOT,
        "tracing %s: %.1f %% %s ops/s than %s untraced, p50 %+.3f ms, p99 %+.3f ms",
        mode,
        Math.abs(1 - vsPlain) * 100,
        vsPlain <= 1 ? "fewer" : "more",
        runs.get(0).driver(),
        p50,
        p99);
  }

  /** Share of the requests the nodes received that they forwarded inside their rack, over all rounds. */
  static String forwarded(List<BenchResult> runs) {
    Count received = Count.of(0);
    Count fwd = Count.of(0);
    for (BenchResult r : runs) {
      if (r.nodes().isEmpty()) return "n/a (no per-node counters)";
      for (NodeStat n : r.nodes()) {
        received = received.plus(n.serverRequests());
        fwd = fwd.plus(n.serverForwarded());
      }
    }
    if (!received.available()) return received.toString();
    if (!fwd.available()) return fwd.toString();
    return received.value() == 0
        ? "n/a (no requests)"
        : String.format("%.1f %%", 100.0 * fwd.value() / received.value());
  }

  /** GET and SET on their own, with exactly the bench's thread count as clients; null when skipped. */
  private Map<String, RedisBenchmark.Result> runRedisBenchmark(
      Map<String, List<BenchResult>> byVariant, int round) {
    if (!RedisBenchmark.available()) {
      if (round == 1)
        out.accept("redis-benchmark is not on the PATH: skipped (apt package redis-tools)");
      redisBenchmark.put("skipped", "redis-benchmark not on PATH");
      return null;
    }
    int clients = base.readers + base.writers + base.threads;
    if (clients < target.hosts().size()) {
      redisBenchmark.put(
          "skipped", clients + " clients cannot cover " + target.hosts().size() + " nodes");
      return null;
    }
    // About as long as one measured run per command, at the rate of the round's first variant.
    double rate = byVariant.values().stream()
        .findFirst()
        .map(l -> l.get(l.size() - 1).opsPerSec())
        .orElse(20_000.0);
    long requests =
        (long) Math.max(20_000, Math.min(5_000_000, rate * base.duration.toMillis() / 1000.0));
    try {
      out.accept("---- redis-benchmark GET, then SET, separately (" + clients + " clients: "
          + Arrays.toString(RedisBenchmark.split(clients, target.hosts().size()))
          + " per node; round " + round + ") ----");
      Map<String, RedisBenchmark.Result> r =
          RedisBenchmark.run(target.hosts(), clients, requests, base.valueSize, base.keys, 1, 600);
      r.values()
          .forEach(x -> out.accept(String.format(
              "   %s: %.0f requests/s, p50 %.2f ms, p99 %.2f ms, error lines shown %d",
              x.command(), x.rps(), x.p50Ms(), x.p99Ms(), x.errorLinesShown())));
      redisBenchmark.put("round " + round, r);
      return r;
    } catch (Exception e) {
      out.accept("redis-benchmark failed: " + e.getMessage());
      redisBenchmark.put("failed in round " + round, e.getMessage());
      return null;
    }
  }

  /** The ratio table as text. */
  public String table() {
    return ComparisonTable.of(rows);
  }

  static double median(double[] v) {
    if (v.length == 0) return 0;
    double[] s = v.clone();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  static double min(double[] v) {
    return Arrays.stream(v).min().orElse(0);
  }

  static double max(double[] v) {
    return Arrays.stream(v).max().orElse(0);
  }
}
