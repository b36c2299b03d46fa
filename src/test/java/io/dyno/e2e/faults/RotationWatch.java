package io.dyno.e2e.faults;

import io.dyno.core.Host;
import io.dyno.jedis.DynoJedisClient;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Which nodes one client took out of rotation during a run: every 50 ms, {@link
 * DynoJedisClient#isNodeUp} for each node of its topology. A node seen down at least once is kept
 * with the time (ms since the run's origin) it was first seen down and how many samples saw it so.
 */
final class RotationWatch implements AutoCloseable {
  private final DynoJedisClient client;
  private final long originNanos;
  private final ScheduledExecutorService sampler;
  private final Map<String, long[]> down = new ConcurrentHashMap<>(); // id -> {first ms, samples}

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
        down.compute(id, (k, v) -> v == null ? new long[] {now, 1} : new long[] {v[0], v[1] + 1});
      }
    }
  }

  /**
   * Nodes seen out of rotation, "address:port(rack)" -> when first seen so, in seconds from
   * {@code faultMs} (negative: before the fault), and in how many 50 ms samples.
   */
  Map<String, String> seenDown(long faultMs) {
    Map<String, String> out = new TreeMap<>();
    down.forEach((id, v) -> out.put(
        id,
        String.format(Locale.ROOT, "from %+.1f s, %d samples", (v[0] - faultMs) / 1000.0, v[1])));
    return out;
  }

  /** The nodes other than {@code faulted} seen out of rotation, as {@link #seenDown}. */
  Map<String, String> healthyNodesSeenDown(Host faulted, long faultMs) {
    Map<String, String> out = seenDown(faultMs);
    out.keySet().removeIf(id -> id.startsWith(faulted.id() + "("));
    return out;
  }

  @Override
  public void close() {
    sampler.shutdownNow();
  }
}
