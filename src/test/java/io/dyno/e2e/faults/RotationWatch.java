package io.dyno.e2e.faults;

import io.dyno.core.Host;
import io.dyno.jedis.DynoJedisClient;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Which nodes one client took out of rotation during a run: every 50 ms, {@link
 * DynoJedisClient#isNodeUp} for each node of its topology. A node seen down at least once is kept
 * with the times (ms since the run's origin) of the samples that saw it so.
 */
final class RotationWatch implements AutoCloseable {
  private final DynoJedisClient client;
  private final long originNanos;
  private final ScheduledExecutorService sampler;
  /** Per node seen out of rotation, the times (ms since the run's origin) of the samples that saw it so. */
  private final Map<String, List<Long>> down = new ConcurrentHashMap<>();

  RotationWatch(String name, DynoJedisClient client, long originNanos) {
    this.client = client;
    this.originNanos = originNanos;
    this.sampler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "rotation-watch-" + name);
      t.setDaemon(true);
      return t;
    });
    sampler.scheduleWithFixedDelay(this::sample, 0, 50, TimeUnit.MILLISECONDS);
  }

  private void sample() {
    long now = (System.nanoTime() - originNanos) / 1_000_000;
    for (Host h : client.topology().hosts()) {
      if (!client.isNodeUp(h)) {
        String id = h.id() + "(" + h.rack() + ")";
        down.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>()).add(now);
      }
    }
  }

  /**
   * Nodes seen out of rotation, "address:port(rack)" -> when first and last seen so, in seconds
   * from {@code faultMs} (negative: before the fault), and in how many 50 ms samples.
   */
  Map<String, String> seenDown(long faultMs) {
    return seenDownFrom(faultMs, 0);
  }

  /**
   * The nodes other than {@code faulted} seen out of rotation from {@code fromMs} on (the measured
   * phases: a node taken out during the warm-up, by the machine's stalls while everything starts
   * cold, is shown by {@link #seenDown} but not held against the fault), as {@link #seenDown}.
   */
  Map<String, String> healthyNodesSeenDown(Host faulted, long faultMs, long fromMs) {
    Map<String, String> out = seenDownFrom(faultMs, fromMs);
    out.keySet().removeIf(id -> id.startsWith(faulted.id() + "("));
    return out;
  }

  private Map<String, String> seenDownFrom(long faultMs, long fromMs) {
    Map<String, String> out = new TreeMap<>();
    down.forEach((id, times) -> {
      List<Long> seen = times.stream().filter(t -> t >= fromMs).toList();
      if (seen.isEmpty()) return;
      out.put(
          id,
          String.format(
              Locale.ROOT,
              "from %+.1f s to %+.1f s, %d samples",
              (seen.get(0) - faultMs) / 1000.0,
              (seen.get(seen.size() - 1) - faultMs) / 1000.0,
              seen.size()));
    });
    return out;
  }

  @Override
  public void close() {
    sampler.shutdownNow();
  }
}
