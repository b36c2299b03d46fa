package io.dyno.e2e.client;

import com.netflix.spectator.api.Counter;
import com.netflix.spectator.api.Meter;
import com.netflix.spectator.api.Registry;
import com.netflix.spectator.api.Tag;
import com.netflix.spectator.api.Timer;
import io.dyno.jedis.DynoJedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * N threads of 80% GET / 20% SET of 1 KiB values over a key set until stopped, counted per phase,
 * with the engine's own meters per phase (GET/SET outcomes by rack, borrow timeouts, failovers,
 * discarded connections), so a failure says where each call went.
 */
final class MixedLoad {
  static final byte[] VALUE = new byte[1024];

  static {
    Arrays.fill(VALUE, (byte) 'x');
  }

  private final int threadCount;
  private final DynoJedisClient client;
  private final List<byte[]> keys;
  private final Registry registry;
  private final AtomicBoolean running = new AtomicBoolean(true);
  final AtomicLong reads = new AtomicLong();
  final AtomicLong writes = new AtomicLong();
  final Map<String, Long> readFailures = new ConcurrentHashMap<>();
  final Map<String, Long> writeFailures = new ConcurrentHashMap<>();
  private final Map<String, Long> perPhase = new ConcurrentHashMap<>();
  private final List<String> readFailureDetails = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final Map<String, String> phaseReports = new LinkedHashMap<>();
  private final Map<String, Map<String, Long>> phaseDeltas = new ConcurrentHashMap<>();
  private volatile String phase = "start";
  private long phaseStart = System.nanoTime();
  private long started = System.nanoTime();
  private Map<String, Long> metersAtPhaseStart = Map.of();

  MixedLoad(int threads, DynoJedisClient client, List<byte[]> keys, Registry registry) {
    this.threadCount = threads;
    this.client = client;
    this.keys = keys;
    this.registry = registry;
  }

  void start() {
    started = System.nanoTime();
    enter("normal");
    for (int t = 0; t < threadCount; t++) {
      Thread th = new Thread(this::loop, "load-" + t);
      th.setDaemon(true);
      threads.add(th);
      th.start();
    }
  }

  private void loop() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    while (running.get()) {
      byte[] k = keys.get(r.nextInt(keys.size()));
      String p = phase;
      if (r.nextInt(100) < 80) {
        long t0 = System.nanoTime();
        try {
          client.get(k);
          reads.incrementAndGet();
          perPhase.merge(p + " reads", 1L, Long::sum);
        } catch (RuntimeException e) {
          readFailures.merge(describe(e), 1L, Long::sum);
          perPhase.merge(p + " failed reads", 1L, Long::sum);
          synchronized (readFailureDetails) {
            if (readFailureDetails.size() < 3) {
              readFailureDetails.add("[" + p + ", after " + (System.nanoTime() - t0) / 1_000_000
                  + " ms, key " + new String(k) + "] " + chain(e, ""));
            }
          }
        }
      } else {
        try {
          client.set(k, VALUE);
          writes.incrementAndGet();
          perPhase.merge(p + " writes", 1L, Long::sum);
        } catch (RuntimeException e) {
          writeFailures.merge(describe(e), 1L, Long::sum);
          perPhase.merge(p + " failed writes", 1L, Long::sum);
        }
      }
    }
  }

  long failedReads() {
    return readFailures.values().stream().mapToLong(Long::longValue).sum();
  }

  String firstReadFailures() {
    synchronized (readFailureDetails) {
      return String.join("\n", readFailureDetails);
    }
  }

  /** The exception and every earlier failure of the same call (attached as suppressed), one per line. */
  private static String chain(Throwable e, String indent) {
    StringBuilder sb = new StringBuilder(e.getClass().getSimpleName() + ": " + e.getMessage());
    for (Throwable s : e.getSuppressed()) {
      sb.append('\n').append(indent).append("  earlier: ").append(chain(s, indent + "  "));
    }
    return sb.toString();
  }

  private static String describe(Throwable e) {
    String m = String.valueOf(e.getMessage());
    return e.getClass().getSimpleName() + ": " + m.replaceAll("\\d+", "N");
  }

  /** Runs the load for {@code d} in the named phase. */
  void phase(String name, Duration d) throws InterruptedException {
    enter(name);
    Thread.sleep(d.toMillis()); // the phase's duration under load, not synchronisation
  }

  /** Starts a phase: closes the previous one's report (its counts and the engine's meter deltas). */
  synchronized void enter(String name) {
    closePhase();
    phase = name;
    phaseStart = System.nanoTime();
    metersAtPhaseStart = meters(registry);
  }

  private void closePhase() {
    if (phase.equals("start")) {
      return;
    }
    Map<String, Long> now = meters(registry);
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(
        "  %-14s %5d ms: reads=%d failedReads=%d writes=%d failedWrites=%d%n",
        phase,
        (System.nanoTime() - phaseStart) / 1_000_000,
        perPhase.getOrDefault(phase + " reads", 0L),
        perPhase.getOrDefault(phase + " failed reads", 0L),
        perPhase.getOrDefault(phase + " writes", 0L),
        perPhase.getOrDefault(phase + " failed writes", 0L)));
    Map<String, Long> deltas = new TreeMap<>();
    for (Map.Entry<String, Long> e : now.entrySet()) {
      long delta = e.getValue() - metersAtPhaseStart.getOrDefault(e.getKey(), 0L);
      if (delta != 0) {
        deltas.put(e.getKey(), delta);
        sb.append("      ").append(e.getKey()).append(" +").append(delta).append('\n');
      }
    }
    phaseDeltas.put(phase, deltas);
    phaseReports.put(phase, sb.toString());
  }

  /** How much an engine meter grew during a (closed) phase. */
  long delta(String phase, String meter) {
    return phaseDeltas.getOrDefault(phase, Map.of()).getOrDefault(meter, 0L);
  }

  /** An engine meter's current count, e.g. {@code op.latency{command=GET,outcome=success,rack=rack1}}. */
  long meter(String meter) {
    return meters(registry).getOrDefault(meter, 0L);
  }

  String report(String title) {
    StringBuilder sb = new StringBuilder(String.format(
        "%s: %d threads, %.1f s of load: reads=%d failedReads=%d writes=%d failedWrites=%d%n",
        title,
        threadCount,
        (System.nanoTime() - started) / 1e9,
        reads.get(),
        failedReads(),
        writes.get(),
        writeFailures.values().stream().mapToLong(Long::longValue).sum()));
    phaseReports.values().forEach(sb::append);
    if (!writeFailures.isEmpty()) {
      sb.append("  write failures: ").append(writeFailures).append('\n');
    }
    if (!readFailureDetails.isEmpty()) {
      sb.append("  first read failures:\n").append(firstReadFailures()).append('\n');
    }
    return sb.toString();
  }

  synchronized void stop() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      t.join(5000);
    }
    closePhase();
  }

  /** The engine's counters of interest, flattened to "name{tags}" → count. */
  static Map<String, Long> meters(Registry registry) {
    Map<String, Long> out = new TreeMap<>();
    for (Meter m : (Iterable<Meter>) registry.stream()::iterator) {
      String name = m.id().name();
      long count;
      if (m instanceof Timer t && name.equals("dyno.op.latency")) {
        count = t.count();
      } else if (m instanceof Counter c
          && (name.equals("dyno.pool.borrow.timeouts")
              || name.equals("dyno.op.failovers")
              || name.equals("dyno.op.retries")
              || name.equals("dyno.pool.connections.closed")
              || name.equals("dyno.pool.connections.failed"))) {
        count = c.count();
      } else {
        continue;
      }
      StringBuilder tags = new StringBuilder();
      for (Tag tag : m.id().tags()) {
        if (!tag.key().equals("app")) {
          tags.append(tags.length() == 0 ? "" : ",")
              .append(tag.key())
              .append('=')
              .append(tag.value());
        }
      }
      out.put(name.substring("dyno.".length()) + "{" + tags + "}", count);
    }
    return out;
  }
}
