package io.dyno.e2e.faults;

import static io.dyno.e2e.faults.FaultLoad.ATTEMPTED_FAULTED;
import static io.dyno.e2e.faults.FaultLoad.FAILED;
import static io.dyno.e2e.faults.FaultLoad.FIRST_ON_FAULTED;
import static io.dyno.e2e.faults.FaultLoad.HELD_BY_NODE;
import static io.dyno.e2e.faults.FaultLoad.KEY_WRITTEN_AWAY;
import static io.dyno.e2e.faults.FaultLoad.READ;
import static io.dyno.e2e.faults.FaultLoad.SENT_FAULTED;
import static io.dyno.e2e.faults.FaultLoad.SERVED_FAULTED;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.LongPredicate;

/**
 * One client's figures for one fault run, cut from its {@link FaultLoad} records: per second (from
 * the fault's start; healthy seconds negative) operations, failures and p99s, and the run's
 * summary the must-shows are checked against.
 */
final class Figures {
  /** An operation slower than this counts as slow: a fifth of the deadline, ~20x a healthy p99 here. */
  static final long SLOW_MICROS = 100_000;

  /**
   * A p99 that is still healthy: under 3x the same run's healthy p99 or under it plus {@value
   * #P99_NOISE_FLOOR_MS} ms, whichever is larger. On loopback a healthy p99 is a fraction of a
   * millisecond, and a busy machine (CI shares it) moves it by a millisecond or two, which 3x of it
   * alone cannot hold; the slow node's own 50 ms would still show far above the floor.
   */
  static double p99Bound(double healthyP99Ms) {
    return Math.max(3 * healthyP99Ms, healthyP99Ms + P99_NOISE_FLOOR_MS);
  }

  static final double P99_NOISE_FLOOR_MS = 10;

  /** When the phases began, in ms since the run's origin: healthy (measured), fault, after, end. */
  record Marks(long healthyMs, long faultMs, long afterMs, long endMs) {}

  /** One second of the run, numbered from the fault's start (healthy seconds are negative). */
  record Second(
      int index,
      long ops,
      long failedReads,
      long failedWrites,
      long failedWritesSentToFaulted,
      double readP99Ms,
      double writeP99Ms,
      long slow,
      long slowViaFaulted,
      long servedByFaulted,
      long longestStallMs) {}

  /**
   * A machine stall at least this long in a call's life excuses its failure: a fifth of the
   * deadline, which no fault handling here needs to spend idle.
   */
  static final long STALL_EXCUSING_FAILURE_MS = 100;
  /** A stall at least this long in a slow call's life (half of {@link #SLOW_MICROS}) excuses it. */
  static final long STALL_EXCUSING_SLOW_MS = 50;
  /** A stall at least this long in a second (the machine's, or a healthy node's) excuses its throughput. */
  static final long STALL_EXCUSING_SECOND_MS = 200;

  final String client;
  final Marks marks;
  private final long[] records; // sorted by end time
  private final MachineStalls stalls;
  private final NodeStalls nodeStalls;
  final List<Second> seconds = new ArrayList<>();

  Figures(String client, long[] records, Marks marks, MachineStalls stalls, NodeStalls nodeStalls) {
    this.client = client;
    this.marks = marks;
    this.stalls = stalls;
    this.nodeStalls = nodeStalls;
    this.records = records.clone();
    Arrays.sort(this.records); // the time is the high bits: sorted by end time
    long first = marks.healthyMs - marks.faultMs;
    for (long s = Math.floorDiv(first, 1000); marks.faultMs + (s + 1) * 1000 <= marks.endMs; s++) {
      long from = marks.faultMs + s * 1000;
      if (from < marks.healthyMs) continue; // only whole seconds
      seconds.add(second((int) s, from, from + 1000));
    }
  }

  private Second second(int index, long from, long to) {
    long[] span = span(from, to);
    return new Second(
        index,
        span.length,
        count(span, r -> has(r, READ) && has(r, FAILED)),
        count(span, r -> !has(r, READ) && has(r, FAILED)),
        count(span, r -> !has(r, READ) && has(r, FAILED) && has(r, SENT_FAULTED)),
        p99Ms(span, r -> has(r, READ)),
        p99Ms(span, r -> !has(r, READ)),
        count(span, r -> FaultLoad.latencyMicros(r) > SLOW_MICROS),
        count(
            span,
            r -> FaultLoad.latencyMicros(r) > SLOW_MICROS
                && has(r, ATTEMPTED_FAULTED)
                && !heldByMachine(r, STALL_EXCUSING_SLOW_MS)),
        count(span, r -> has(r, SERVED_FAULTED)),
        Math.max(stalls.longestWithin(from, to), nodeStalls.longestOfAnyWithin(from, to)));
  }

  /** Whether the machine stalled at least {@code minStallMs} during the call of {@code record}. */
  private boolean heldByMachine(long record, long minStallMs) {
    long end = record >>> 32;
    return stalls.longestWithin(end - FaultLoad.latencyMicros(record) / 1000, end) >= minStallMs;
  }

  // ------------------------------------------------------------------- the run's summary figures

  double healthyOpsPerSecond() {
    return span(marks.healthyMs, marks.faultMs).length * 1000.0 / (marks.faultMs - marks.healthyMs);
  }

  double opsPerSecond(long fromMs, long toMs) {
    return toMs <= fromMs ? 0 : span(fromMs, toMs).length * 1000.0 / (toMs - fromMs);
  }

  double healthyP99Ms(boolean reads) {
    return p99Ms(span(marks.healthyMs, marks.faultMs), r -> has(r, READ) == reads);
  }

  double p99Ms(long fromMs, long toMs, boolean reads) {
    return p99Ms(span(fromMs, toMs), r -> has(r, READ) == reads);
  }

  /**
   * Failed reads from the measured healthy phase on. The warm-up is not measured (connections open,
   * the JIT compiles, on the first test of a class the companion's own JVMs too): its failures are
   * {@link #failedInWarmUp()}, printed beside.
   */
  long failedReads() {
    return count(measured(), r -> has(r, READ) && has(r, FAILED) && !excused(r));
  }

  /**
   * Failed reads left out of {@link #failedReads()}: the machine stalled during their lives, or a
   * node they tried (not the faulted one) stalled by itself ({@link NodeStalls}).
   */
  long failedReadsExcused() {
    return count(measured(), r -> has(r, READ) && has(r, FAILED) && excused(r));
  }

  /** A failure during whose life the machine, or a healthy node the call tried, stalled long. */
  private boolean excused(long record) {
    return has(record, HELD_BY_NODE) || heldByMachine(record, STALL_EXCUSING_FAILURE_MS);
  }

  long failedWrites() {
    return count(measured(), r -> !has(r, READ) && has(r, FAILED));
  }

  /** Failed writes none of whose attempts reached the faulted node: the ones a fault may not cost. */
  long failedWritesNotSentToFaulted() {
    return count(
        measured(), r -> !has(r, READ) && has(r, FAILED) && !has(r, SENT_FAULTED) && !excused(r));
  }

  /** Calls (reads and writes) that failed during the warm-up, before anything was measured. */
  long failedInWarmUp() {
    return count(span(0, marks.healthyMs), r -> has(r, FAILED));
  }

  private long[] measured() {
    return span(marks.healthyMs, Integer.MAX_VALUE);
  }

  /**
   * The whole seconds from {@code fromMs} to the run's end (numbered from 0) with fewer operations
   * than {@code share} x healthy, but for those in which the machine or a healthy node stalled
   * {@link #STALL_EXCUSING_SECOND_MS} or more.
   */
  List<Second> secondsBelowFrom(double share, long fromMs) {
    double bound = share * healthyOpsPerSecond();
    List<Second> out = new ArrayList<>();
    for (int i = 0; fromMs + (i + 1) * 1000L <= marks.endMs; i++) {
      Second s = second(i, fromMs + i * 1000L, fromMs + (i + 1) * 1000L);
      if (s.ops() < bound && s.longestStallMs() < STALL_EXCUSING_SECOND_MS) out.add(s);
    }
    return out;
  }

  Second slowestSecondFromFault() {
    return seconds.stream()
        .filter(s -> s.index() >= 0)
        .min((a, b) -> Long.compare(a.ops(), b.ops()))
        .orElse(null);
  }

  /** Share of healthy operations whose answer came from the faulted node (about half here). */
  double healthyServedByFaultedShare() {
    return healthyServedByFaultedShare(r -> true);
  }

  private double healthyServedByFaultedShare(LongPredicate calls) {
    long[] healthy = filter(span(marks.healthyMs, marks.faultMs), calls);
    return healthy.length == 0
        ? 0
        : count(healthy, r -> has(r, SERVED_FAULTED)) / (double) healthy.length;
  }

  /** {@link #backInLocalRackMs(boolean)} when there are too few calls to measure it over. */
  static final long TOO_FEW_CALLS = -2;

  /**
   * Milliseconds from the fault's end until traffic is back in the local rack: the start of the
   * first 500 ms window in which the faulted node answered at least half its healthy share of the
   * calls; -1 if it never did before the run ended. With {@code keysNotWrittenAway}, over the calls
   * on keys this client did not SET while the node was away only (both the healthy share and each
   * window): a key SET elsewhere meanwhile is, by design, kept in the rack that took the write until
   * a whole-value write goes home, so its calls are not expected back. {@link #TOO_FEW_CALLS} when
   * the healthy phase had fewer than 20 such calls answered by the node.
   */
  long backInLocalRackMs(boolean keysNotWrittenAway) {
    LongPredicate calls = keysNotWrittenAway ? r -> !has(r, KEY_WRITTEN_AWAY) : r -> true;
    long[] healthy = filter(span(marks.healthyMs, marks.faultMs), calls);
    if (count(healthy, r -> has(r, SERVED_FAULTED)) < 20) return TOO_FEW_CALLS;
    double bound = healthyServedByFaultedShare(calls) / 2;
    for (long t = marks.afterMs; t + 500 <= marks.endMs; t += 100) {
      long[] w = filter(span(t, t + 500), calls);
      if (w.length > 0 && count(w, r -> has(r, SERVED_FAULTED)) >= bound * w.length) {
        return t - marks.afterMs;
      }
    }
    return -1;
  }

  /** Calls on keys this client SET while the node was away, and all calls, from the fault's end. */
  long[] callsAfterOnKeysWrittenAway() {
    long[] after = span(marks.afterMs, marks.endMs);
    return new long[] {count(after, r -> has(r, KEY_WRITTEN_AWAY)), after.length};
  }

  /**
   * Operations per {@code stepMs} from {@code fromMs} for {@code steps} steps, as ops/s: where in
   * a slow second the calls stopped (the fault's detection, or a stall of the whole machine).
   */
  long[] opsPerSecondBy(long fromMs, long stepMs, int steps) {
    long[] out = new long[steps];
    for (int i = 0; i < steps; i++) {
      long from = fromMs + i * stepMs;
      out[i] = span(from, from + stepMs).length * 1000 / stepMs;
    }
    return out;
  }

  /**
   * When the faulted node was steered away from, in ms since the fault's start: the earliest time
   * from which every 500 ms (in steps of 100 ms) to the fault's end sent at most 1 % of its calls
   * first to the faulted node; -1 if that never held for the last 5 s of the fault. In windows, not
   * over the whole rest of the fault: the calls of the detection itself (its first few hundred ms)
   * are then left out of the p99 "once steered", however small a share of the whole fault they are.
   */
  long steeredAfterMs() {
    long steeredAt = -1;
    for (long w = marks.afterMs - 500; w >= marks.faultMs; w -= 100) {
      long[] window = span(w, w + 500);
      if (count(window, r -> has(r, FIRST_ON_FAULTED)) * 100 > window.length) break;
      steeredAt = w;
    }
    if (steeredAt < 0 || steeredAt > marks.afterMs - 5_000) return -1;
    return steeredAt - marks.faultMs;
  }

  /**
   * Seconds of the fault, after its first, in which more than 1 % of the operations were slow and
   * had an attempt on the faulted node: the burst a re-admission into rotation brings. Slow calls
   * that never went near the node, or during whose life the machine stalled {@link
   * #STALL_EXCUSING_SLOW_MS} or more, are not counted.
   */
  List<Second> slowBursts() {
    return seconds.stream()
        .filter(s -> s.index() >= 1 && marks.faultMs + (s.index() + 1) * 1000L <= marks.afterMs)
        .filter(s -> s.slowViaFaulted() * 100 > s.ops())
        .toList();
  }

  long slowInHealthy() {
    return count(
        span(marks.healthyMs, marks.faultMs), r -> FaultLoad.latencyMicros(r) > SLOW_MICROS);
  }

  // ------------------------------------------------------------------------------------- helpers

  private long[] span(long fromMs, long toMs) {
    int a = lowerBound(fromMs);
    int b = lowerBound(toMs);
    return Arrays.copyOfRange(records, a, b);
  }

  private int lowerBound(long ms) {
    long key = ms << 32;
    int i = Arrays.binarySearch(records, key);
    if (i < 0) return -i - 1;
    while (i > 0 && records[i - 1] >= key) i--;
    return i;
  }

  private static long[] filter(long[] rs, LongPredicate p) {
    return Arrays.stream(rs).filter(p).toArray();
  }

  private static boolean has(long record, int flag) {
    return (FaultLoad.flags(record) & flag) != 0;
  }

  private static long count(long[] rs, LongPredicate p) {
    long n = 0;
    for (long r : rs) {
      if (p.test(r)) n++;
    }
    return n;
  }

  private static double p99Ms(long[] rs, LongPredicate p) {
    long[] lat =
        Arrays.stream(rs).filter(p).map(FaultLoad::latencyMicros).sorted().toArray();
    if (lat.length == 0) return Double.NaN;
    return lat[(int) Math.min(lat.length - 1, Math.ceil(lat.length * 0.99) - 1)] / 1000.0;
  }

  static String ms(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f", v);
  }
}
