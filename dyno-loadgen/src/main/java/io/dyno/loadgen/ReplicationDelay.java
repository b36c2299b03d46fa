package io.dyno.loadgen;

import io.dyno.core.Host;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.loadgen.bench.Latencies;
import io.dyno.loadgen.bench.SettingValues;
import io.dyno.loadgen.drivers.JedisPoolsDriver;
import io.dyno.loadgen.target.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * The replication delay between racks, measured at the client the way Dynomite's wiki did (write
 * 1k keys in one place, poll 20 random ones elsewhere, each value the write's timestamp), with one
 * change: the 20 keys are polled while the writes go on, from the moment each is written, so a
 * key's delay is not inflated by the time the rest of the 1k took to send.
 *
 * <p>Per iteration: {@code keys} keys are written one by one (SET, waiting for each reply) straight
 * to their owner in the write rack; {@code sample} of them, chosen at random beforehand, are polled
 * in every other rack straight from that rack's owner node (plain GET on its client port, so
 * Dynomite serves it from that rack's Redis). A key's delay is the time from just before its SET
 * was sent to the first GET that returned its value. A key not seen within {@code bound} counts as
 * never seen. Reported per rack: p50, p99, max over every polled key, and the keys never seen.
 */
public final class ReplicationDelay implements AutoCloseable {
  private final Target target;
  private final String writeRack;
  private final int keys;
  private final int sample;
  private final Duration bound;
  private final Duration gap;
  private final Consumer<String> out;
  private final DynoJedisClient topologyClient;
  private final Map<String, Jedis> conns = new ConcurrentHashMap<>();
  private final List<String> otherRacks = new ArrayList<>();
  private final Map<String, Histogram> perRack = new LinkedHashMap<>();
  private final Map<String, Long> missingPerRack = new LinkedHashMap<>();
  private final List<Map<String, Object>> iterations = new CopyOnWriteArrayList<>();
  private final List<Map<String, Object>> events = new CopyOnWriteArrayList<>();
  private final String runId = Long.toString(System.currentTimeMillis(), 36);
  private final long startNanos = System.nanoTime();
  private volatile boolean stopped;
  private int nextIteration = 1;

  public ReplicationDelay(
      Target target,
      String writeRack,
      int keys,
      int sample,
      Duration bound,
      Duration gap,
      Consumer<String> out) {
    SettingValues.require(keys >= 1, "repl-keys", "must be >= 1, was " + keys);
    SettingValues.require(
        sample >= 1 && sample <= keys, "repl-sample", "must be 1.." + keys + ", was " + sample);
    this.target = target;
    this.keys = keys;
    this.sample = sample;
    this.bound = bound;
    this.gap = gap;
    this.out = out;
    List<String> racks =
        target.hosts().stream().map(Host::rack).distinct().sorted().toList();
    this.writeRack = writeRack != null ? writeRack : racks.get(0);
    if (!racks.contains(this.writeRack)) {
      throw new IllegalArgumentException(
          "--write-rack " + writeRack + ": the cluster's racks are " + racks);
    }
    for (String r : racks) {
      if (!r.equals(this.writeRack)) {
        otherRacks.add(r);
        perRack.put(r, Latencies.histogram());
        missingPerRack.put(r, 0L);
      }
    }
    if (otherRacks.isEmpty())
      throw new IllegalArgumentException(
          "replication delay needs at least two racks, the cluster has " + racks);
    // Only for its topology: which node of each rack owns a key (the cluster's own hash and
    // tokens).
    this.topologyClient = DynoJedisClient.builder()
        .applicationName("replication-delay")
        .hostSupplier(target::hosts)
        .tokenMapSupplier(h -> target.tokens())
        .localRack(this.writeRack)
        .build();
  }

  public void stop() {
    stopped = true;
  }

  /** Records a fault or other event at the current time (seconds since the start). */
  public void event(String kind, String text) {
    events.add(Map.of("t", seconds(), "kind", kind, "text", text));
  }

  /** Nanoseconds since this instance began, at least 1 (0 and -1 mark keys not yet written and never written). */
  private long clock() {
    return System.nanoTime() - startNanos + 1;
  }

  public double seconds() {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private Host owner(String key, String rack) {
    for (Host h : topologyClient.topology().replicas(key)) {
      if (h.rack().equals(rack)) return h;
    }
    throw new IllegalStateException("no node of rack " + rack + " owns key " + key);
  }

  private Jedis conn(Host h) {
    return conns.computeIfAbsent(h.id() + "/" + Thread.currentThread().getName(), k -> {
      // Dynomite refuses Jedis's CLIENT SETINFO handshake: the same settings as the plain-pools
      // driver.
      return new Jedis(
          new HostAndPort(h.address(), h.port()),
          JedisPoolsDriver.clientConfig(
              Duration.ofMillis(Math.max(500, Math.min(2000, bound.toMillis())))));
    });
  }

  private void dropConn(Host h) {
    Jedis j = conns.remove(h.id() + "/" + Thread.currentThread().getName());
    if (j != null) {
      try {
        j.close();
      } catch (RuntimeException ignored) {
        // a broken connection: nothing to close cleanly
      }
    }
  }

  /** Runs {@code n} iterations (0: until {@link #stop()}). */
  public void run(int n) throws InterruptedException {
    for (int done = 0; (n == 0 || done < n) && !stopped; done++) {
      iteration(nextIteration++);
      if ((n == 0 || done + 1 < n) && !stopped) {
        TimeUnit.MILLISECONDS.sleep(
            gap.toMillis()); // pacing between iterations (a pause of the load, not a
        // synchronisation)
      }
    }
  }

  private void iteration(int it) throws InterruptedException {
    String prefix = "repl:" + runId + ":" + it + ":";
    int[] chosen = ThreadLocalRandom.current()
        .ints(0, keys)
        .distinct()
        .limit(sample)
        .sorted()
        .toArray();
    AtomicLongArray writtenAt = new AtomicLongArray(keys);
    String[] expected = new String[keys];
    Map<String, long[]> seenAt = new LinkedHashMap<>();
    List<Thread> pollers = new ArrayList<>();
    long writeDeadline = clock() + bound.toNanos() + TimeUnit.SECONDS.toNanos(30);
    for (String rack : otherRacks) {
      long[] seen = new long[sample];
      seenAt.put(rack, seen);
      Thread t = new Thread(
          () -> poll(rack, prefix, chosen, writtenAt, expected, seen, writeDeadline),
          "repl-poll-" + rack);
      t.setDaemon(true);
      pollers.add(t);
      t.start();
    }
    int writeErrors = 0;
    String firstWriteError = null;
    for (int i = 0; i < keys && !stopped; i++) {
      String key = prefix + i;
      Host h = owner(key, writeRack);
      long now = clock();
      String value = "written-at-ms=" + System.currentTimeMillis() + ";ns=" + now;
      expected[i] = value;
      try {
        conn(h).set(key, value);
        writtenAt.set(i, now); // published after the value: pollers start with this key now
      } catch (RuntimeException e) {
        writeErrors++;
        if (firstWriteError == null) firstWriteError = "SET " + key + " to " + h.id() + ": " + e;
        dropConn(h);
        writtenAt.set(i, -1); // never written: not polled, not counted
      }
    }
    for (int i = 0; i < keys; i++) {
      if (writtenAt.get(i) == 0) writtenAt.set(i, -1); // stopped before this key
    }
    for (Thread t : pollers) t.join();
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("iteration", it);
    row.put("t", seconds());
    row.put("writeErrors", writeErrors);
    if (firstWriteError != null) row.put("firstWriteError", firstWriteError);
    Map<String, Object> racks = new LinkedHashMap<>();
    for (String rack : otherRacks) {
      long[] seen = seenAt.get(rack);
      Histogram h = Latencies.histogram();
      int missing = 0;
      for (int s = 0; s < sample; s++) {
        long w = writtenAt.get(chosen[s]);
        if (w <= 0) continue;
        if (seen[s] == 0) missing++;
        else h.recordValue(Latencies.micros(seen[s] - w));
      }
      synchronized (this) {
        perRack.get(rack).add(h);
        missingPerRack.merge(rack, (long) missing, Long::sum);
      }
      racks.put(rack, figures(h, missing));
    }
    row.put("racks", racks);
    iterations.add(row);
    out.accept("[replication] iteration " + it + " (write rack " + writeRack + ", " + keys
        + " keys, " + writeErrors + " write errors"
        + (firstWriteError != null ? ", first: " + firstWriteError : "") + "): " + racks);
  }

  private void poll(
      String rack,
      String prefix,
      int[] chosen,
      AtomicLongArray writtenAt,
      String[] expected,
      long[] seen,
      long deadline) {
    int pending = chosen.length;
    while (pending > 0 && !stopped && clock() < deadline) {
      pending = 0;
      for (int s = 0; s < chosen.length; s++) {
        if (seen[s] != 0) continue;
        long w = writtenAt.get(chosen[s]);
        if (w == -1) continue; // not written
        pending++;
        if (w == 0) continue; // not yet written
        if (clock() - w > bound.toNanos()) {
          seen[s] = 0;
          pending--;
          writtenAt.compareAndSet(chosen[s], w, w); // still counted as never seen
          continue;
        }
        String key = prefix + chosen[s];
        Host h = owner(key, rack);
        try {
          String v = conn(h).get(key);
          long now = clock();
          // A GET answered after the bound (it stalled on a hung node) is not a sighting: the key
          // counts as never seen.
          if (expected[chosen[s]].equals(v) && now - w <= bound.toNanos()) seen[s] = now;
        } catch (RuntimeException e) {
          dropConn(h); // the node is down or paused: the key stays unseen until the bound
        }
      }
      // Stop once every written key was seen or is past the bound.
      boolean open = false;
      for (int s = 0; s < chosen.length; s++) {
        long w = writtenAt.get(chosen[s]);
        if (seen[s] == 0 && w != -1 && (w == 0 || clock() - w <= bound.toNanos())) open = true;
      }
      if (!open) return;
    }
  }

  private static Map<String, Object> figures(Histogram h, long missing) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("keys", h.getTotalCount() + missing);
    m.put("p50Ms", ms(Latencies.percentile(h, 0.50)));
    m.put("p99Ms", ms(Latencies.percentile(h, 0.99)));
    m.put("maxMs", ms(Latencies.percentile(h, 1.0)));
    m.put("meanMs", h.getTotalCount() == 0 ? 0 : Math.round(h.getMean()) / 1000.0);
    m.put("missing", missing);
    return m;
  }

  private static double ms(long micros) {
    return micros / 1000.0;
  }

  /** The figures so far: per rack over every iteration, the iterations, the events and the method. */
  public synchronized Map<String, Object> status() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("writeRack", writeRack);
    m.put("keysPerIteration", keys);
    m.put("polledPerRack", sample);
    m.put("boundMs", bound.toMillis());
    Map<String, Object> racks = new LinkedHashMap<>();
    perRack.forEach((r, h) -> racks.put(r, figures(h, missingPerRack.get(r))));
    m.put("racks", racks);
    m.put("iterations", new ArrayList<>(iterations));
    m.put("events", new ArrayList<>(events));
    m.put(
        "method",
        "per iteration " + keys + " keys SET one by one straight to their owner in " + writeRack
            + ", value = the write's "
            + "timestamp; " + sample
            + " of them (random) polled with GET straight from their owner in each other rack from the moment "
            + "each SET is sent; delay = first GET returning the value - just before the SET; never seen = not within "
            + bound.toMillis()
            + " ms; measured at the client on one machine (loopback)");
    return m;
  }

  @Override
  public void close() {
    stopped = true;
    conns.values().forEach(j -> {
      try {
        j.close();
      } catch (RuntimeException ignored) {
        // closing anyway
      }
    });
    topologyClient.close();
  }

  /** Iterations completed so far. */
  int iterationsDone() {
    return iterations.size();
  }

  /** For tests: per rack figures so far. */
  @SuppressWarnings("unchecked")
  public Map<String, Map<String, Object>> racks() {
    return (Map<String, Map<String, Object>>)
        (Map<?, ?>) new HashMap<>((Map<String, Object>) status().get("racks"));
  }
}
