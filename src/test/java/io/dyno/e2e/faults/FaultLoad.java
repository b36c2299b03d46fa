package io.dyno.e2e.faults;

import io.dyno.jedis.DynoJedisClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client's load for a fault run: N threads of 80 % GET / 20 % SET of 1 KiB values over a key
 * set, until stopped, together at a fixed rate ({@link Pace}: each thread a share of it, dropping
 * the slots it missed when behind) or, with rate 0, each as fast as it can. Every operation is
 * recorded (when it ended, how long it took, read or write, failed or not, and from its {@link
 * CallTrace}: whether it was sent to the faulted node and whose answer it got), so {@link Figures} can cut the run into seconds afterwards. Each value starts with
 * its key, so a read of another key's value is caught ({@link #wrongValues()}).
 */
final class FaultLoad {
  static final int VALUE_SIZE = 1024;

  // One record per operation: end time (ms since the run's origin) | flags | latency (µs, capped at
  // 2^24: 16 s, far past any deadline here).
  static final int READ = 1;
  static final int FAILED = 2;
  static final int SENT_FAULTED = 4;
  static final int SERVED_FAULTED = 8;
  static final int FIRST_ON_FAULTED = 16;
  static final int ATTEMPTED_FAULTED = 32;
  /** The call's key was SET by this client while the faulted node was away (set by {@link #records()}). */
  static final int KEY_WRITTEN_AWAY = 64;
  /**
   * The call failed while a node it tried, other than the faulted one, stalled by itself for {@link
   * Figures#STALL_EXCUSING_FAILURE_MS} or more ({@link NodeStalls}; set by {@link #records()}).
   */
  static final int HELD_BY_NODE = 128;

  private static final int FLAG_BITS = 8;
  private static final int LATENCY_BITS = 24;
  private static final long LATENCY_MASK = (1L << LATENCY_BITS) - 1;

  final String name;
  private final DynoJedisClient client;
  private final CallTrace.Recorder traces;
  private final List<byte[]> keys;
  private final long originNanos;
  private final int threadCount;
  /** Operations a second for all threads together; 0: each thread calls again at once. */
  private volatile int rate;

  private final AtomicLong droppedSlots = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();
  private final List<long[]> finished = new ArrayList<>();
  /** Per record of {@link #finished}, the index of its key. */
  private final List<int[]> finishedKeys = new ArrayList<>();
  /** Per failed operation (by its record), the nodes but the faulted one it tried. */
  private final Map<Long, List<String>> failedTried = new ConcurrentHashMap<>();

  private final NodeStalls nodeStalls;
  /** Per key: 1 once this client issued a SET of it while the faulted node was away. */
  private final AtomicIntegerArray writtenAway;

  private volatile boolean running;
  private volatile boolean away;
  /** Operations ended so far, failed or not: a live view for "is the load steady yet". */
  final AtomicLong completed = new AtomicLong();
  /** Operations the faulted node answered, so far: a live view for "is traffic back there". */
  final AtomicLong servedByFaulted = new AtomicLong();

  private final AtomicLong wrongValues = new AtomicLong();
  private final Map<String, Long> failures = new ConcurrentHashMap<>();
  private final List<String> samples = new ArrayList<>();

  FaultLoad(
      String name,
      DynoJedisClient client,
      CallTrace.Recorder traces,
      List<byte[]> keys,
      int threads,
      int rate,
      long originNanos,
      NodeStalls nodeStalls) {
    this.nodeStalls = nodeStalls;
    this.name = name;
    this.client = client;
    this.traces = traces;
    this.keys = keys;
    this.threadCount = threads;
    this.rate = rate;
    this.originNanos = originNanos;
    this.writtenAway = new AtomicIntegerArray(keys.size());
  }

  /**
   * Whether the faulted node is away for this client: from the fault's start until the client holds
   * the node in rotation again after the fault's end ({@link FaultRun} says when). A key SET
   * meanwhile may be a diverged key, whose calls the client keeps in the rack that took the write.
   */
  void away(boolean away) {
    this.away = away;
  }

  boolean isAway() {
    return away;
  }

  /**
   * Keys only read while the node is away (one in {@value #READ_ONLY_WHILE_AWAY_EVERY}): a SET
   * drawn on one of them then goes to the next key. Without them a hot key set leaves no key of the
   * faulted node unwritten after a 20 s fault, and "back in the local rack" over the keys not
   * written while away could not be measured at all.
   */
  static final int READ_ONLY_WHILE_AWAY_EVERY = 10;

  /** The value every SET of {@code key} writes: the key, then filler up to 1 KiB. */
  static byte[] valueOf(byte[] key) {
    byte[] v = new byte[VALUE_SIZE];
    Arrays.fill(v, (byte) '.');
    System.arraycopy(key, 0, v, 0, Math.min(key.length, VALUE_SIZE));
    return v;
  }

  /**
   * Paces the threads at {@code newRate} from now on: they are stopped (what they recorded is
   * kept) and started again on the new schedule.
   */
  void repace(int newRate) throws InterruptedException {
    stop();
    threads.clear();
    rate = newRate;
    start();
  }

  void start() {
    running = true;
    long interval = rate > 0 ? Pace.intervalNanos(rate, threadCount) : 0;
    long start = System.nanoTime();
    for (int t = 0; t < threadCount; t++) {
      // The threads' slots interleave evenly: together they call every interval / threads.
      Pace pace = rate > 0
          ? new Pace(interval, start + interval * t / threadCount, System::nanoTime)
          : null;
      Thread th = new Thread(() -> loop(pace), "fault-load-" + name + "-" + t);
      th.setDaemon(true);
      threads.add(th);
      th.start();
    }
  }

  private void loop(Pace pace) {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    long[] records = new long[1 << 16];
    int[] keyOf = new int[records.length];
    int n = 0;
    while (running) {
      if (pace != null && !pace.awaitSlot(() -> running)) break;
      int i = r.nextInt(keys.size());
      boolean read = r.nextInt(100) < 80;
      if (!read && away) {
        if (i % READ_ONLY_WHILE_AWAY_EVERY == 0) i = (i + 1) % keys.size();
        writtenAway.set(i, 1); // before the call: the write may be taken elsewhere however it ends
      }
      byte[] k = keys.get(i);
      int flags = read ? READ : 0;
      traces.reset();
      long t0 = System.nanoTime();
      try {
        if (read) {
          byte[] got = client.get(k);
          if (got != null && !Arrays.equals(got, valueOf(k))) {
            wrongValues.incrementAndGet();
            sample("wrong value for " + text(k) + ": " + text(Arrays.copyOf(got, 40)));
          }
        } else {
          client.set(k, valueOf(k));
        }
      } catch (RuntimeException e) {
        flags |= FAILED;
        failures.merge((read ? "GET " : "SET ") + describe(e), 1L, Long::sum);
        sample((read ? "GET " : "SET ") + text(k) + " at " + (t0 - originNanos) / 1_000_000
            + " ms of the run, after " + (System.nanoTime() - t0) / 1_000_000 + " ms: "
            + e.getClass().getSimpleName() + ": " + e.getMessage());
      }
      long end = System.nanoTime();
      CallTrace trace = traces.last();
      if (trace != null) {
        if (trace.attemptedFaulted()) flags |= ATTEMPTED_FAULTED;
        if (trace.sentToFaulted()) flags |= SENT_FAULTED;
        if (trace.firstOnFaulted()) flags |= FIRST_ON_FAULTED;
        if (trace.servedByFaulted()) {
          flags |= SERVED_FAULTED;
          servedByFaulted.incrementAndGet();
        }
      }
      if (n == records.length) {
        records = Arrays.copyOf(records, n * 2);
        keyOf = Arrays.copyOf(keyOf, n * 2);
      }
      keyOf[n] = i;
      records[n++] = record((end - originNanos) / 1_000_000, flags, (end - t0) / 1_000);
      if ((flags & FAILED) != 0 && trace != null) {
        // keyed by the record: two calls ending alike in the same ms share one entry, both nodes'
        failedTried.merge(records[n - 1], trace.attemptedOthers(), FaultLoad::union);
      }
      completed.incrementAndGet();
      if (pace != null) pace.advance();
    }
    if (pace != null) droppedSlots.addAndGet(pace.dropped());
    synchronized (finished) {
      finished.add(Arrays.copyOf(records, n));
      finishedKeys.add(Arrays.copyOf(keyOf, n));
    }
  }

  static long record(long timeMs, int flags, long latencyMicros) {
    return (timeMs << 32) | ((long) flags << LATENCY_BITS) | Math.min(latencyMicros, LATENCY_MASK);
  }

  static long timeMs(long record) {
    return record >>> 32;
  }

  static int flags(long record) {
    return (int) ((record >>> LATENCY_BITS) & ((1 << FLAG_BITS) - 1));
  }

  static long latencyMicros(long record) {
    return record & LATENCY_MASK;
  }

  /** Stops the threads and waits for them (a call in flight ends by its deadline). */
  void stop() throws InterruptedException {
    running = false;
    for (Thread t : threads) {
      t.join(10_000);
      if (t.isAlive()) throw new IllegalStateException(t.getName() + " did not stop in 10 s");
    }
  }

  /**
   * Every operation's record, after {@link #stop()}, in no particular order; those on a key this
   * client SET while the node was away carry {@link #KEY_WRITTEN_AWAY}, whenever they ran.
   */
  long[] records() {
    synchronized (finished) {
      int total = finished.stream().mapToInt(a -> a.length).sum();
      long[] all = new long[total];
      int at = 0;
      for (int t = 0; t < finished.size(); t++) {
        long[] rs = finished.get(t);
        int[] ks = finishedKeys.get(t);
        for (int j = 0; j < rs.length; j++) {
          long mark = writtenAway.get(ks[j]) == 1 ? (long) KEY_WRITTEN_AWAY << LATENCY_BITS : 0;
          if (heldByNode(rs[j])) mark |= (long) HELD_BY_NODE << LATENCY_BITS;
          all[at++] = rs[j] | mark;
        }
      }
      return all;
    }
  }

  private static List<String> union(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    b.stream().filter(id -> !all.contains(id)).forEach(all::add);
    return all;
  }

  /** Whether the failed call of {@code record} tried a node that stalled by itself meanwhile. */
  private boolean heldByNode(long record) {
    List<String> tried = failedTried.get(record);
    if (tried == null) return false;
    long end = timeMs(record);
    long start = end - latencyMicros(record) / 1000;
    return tried.stream()
        .anyMatch(
            id -> nodeStalls.longestWithin(id, start, end) >= Figures.STALL_EXCUSING_FAILURE_MS);
  }

  /** How many keys this client SET while the faulted node was away. */
  int keysWrittenAway() {
    int n = 0;
    for (int i = 0; i < writtenAway.length(); i++) n += writtenAway.get(i);
    return n;
  }

  /** The rate the threads are paced to together (ops/s), 0 if unpaced. */
  int rate() {
    return rate;
  }

  /** Slots the threads skipped because a call outlasted them, after {@link #stop()}. */
  long droppedSlots() {
    return droppedSlots.get();
  }

  long wrongValues() {
    return wrongValues.get();
  }

  /** Failures by kind ("GET Exception: message with numbers as N") and count. */
  Map<String, Long> failures() {
    return Map.copyOf(failures);
  }

  /** The first few failures and wrong values, each with its key and how long it took. */
  List<String> samples() {
    synchronized (samples) {
      return List.copyOf(samples);
    }
  }

  private void sample(String s) {
    synchronized (samples) {
      if (samples.size() < 5) samples.add(s);
    }
  }

  private static String describe(Throwable e) {
    return e.getClass().getSimpleName() + ": "
        + String.valueOf(e.getMessage()).replaceAll("\\d+", "N");
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
