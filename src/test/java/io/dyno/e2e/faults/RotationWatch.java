package io.dyno.e2e.faults;

import io.dyno.core.Host;
import io.dyno.jedis.DynoJedisClient;
import java.util.ArrayList;
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
   * cold, is shown by {@link #seenDown} but not held against the fault), as {@link #seenDown}. A
   * time out of rotation that began while the node itself had stopped answering (a stall of {@link
   * #NODE_STALL_EXCUSING_MS} or more in {@code nodeStalls}, ended at most {@link #VERDICT_SLACK_MS}
   * before the first sample that saw it out) is left out: the client saw the node's own stall.
   */
  Map<String, String> healthyNodesSeenDown(
      Host faulted, long faultMs, long fromMs, NodeStalls nodeStalls) {
    Map<String, String> out = seenDownFrom(faultMs, fromMs, nodeStalls);
    out.keySet().removeIf(id -> id.startsWith(faulted.id() + "("));
    return out;
  }

  /**
   * Milliseconds from {@code fromMs} to the first sample that saw {@code node} out of rotation, or -1
   * if none did.
   */
  long firstSeenDown(Host node, long fromMs) {
    List<Long> times = down.get(node.id() + "(" + node.rack() + ")");
    if (times == null) return -1;
    return times.stream()
        .filter(t -> t >= fromMs)
        .findFirst()
        .map(t -> t - fromMs)
        .orElse(-1L);
  }

  /** A node's own stall this long or more may rightly take it out of rotation (silentNodeAfter: 150). */
  static final long NODE_STALL_EXCUSING_MS = 100;

  /** From a node's stall's end to the sample that sees it out: the verdict, and a 50 ms sample. */
  static final long VERDICT_SLACK_MS = 300;

  /** A gap between samples that saw a node out longer than this starts a new time out of rotation. */
  private static final long EPISODE_GAP_MS = 150;

  private Map<String, String> seenDownFrom(long faultMs, long fromMs) {
    return seenDownFrom(faultMs, fromMs, null);
  }

  private Map<String, String> seenDownFrom(long faultMs, long fromMs, NodeStalls nodeStalls) {
    Map<String, String> out = new TreeMap<>();
    down.forEach((id, times) -> {
      List<Long> seen = times.stream().filter(t -> t >= fromMs).toList();
      if (nodeStalls != null) seen = leaveOutNodeStalls(nodeId(id), seen, nodeStalls);
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

  /** "address:port(rack)" -> "address:port", the id the node stalls are kept by. */
  private static String nodeId(String shown) {
    return shown.substring(0, shown.indexOf('('));
  }

  /** The samples but those of times out of rotation that began with the node's own stall. */
  private static List<Long> leaveOutNodeStalls(String id, List<Long> seen, NodeStalls stalls) {
    List<Long> kept = new ArrayList<>();
    boolean excused = false;
    Long last = null;
    for (long t : seen) {
      if (last == null || t - last > EPISODE_GAP_MS) {
        excused = stalls.stalledJustBefore(id, t, NODE_STALL_EXCUSING_MS, VERDICT_SLACK_MS);
      }
      last = t;
      if (!excused) kept.add(t);
    }
    return kept;
  }

  @Override
  public void close() {
    sampler.shutdownNow();
  }
}
