package io.dyno.loadgen.bench;

import io.dyno.core.ConsistencyLevel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Requests per node over a run: the driver's own counts beside the servers' counters (each "n/a"
 * with the reason when unknown), and the driver's counts per progress interval.
 */
final class NodeCounts {
  private final Driver driver;
  private final Map<String, String> nodeNames = new ConcurrentHashMap<>();
  private volatile ServerCounters<?> serverCounters;
  private volatile String noCountersReason;
  private volatile String targetName = "?";
  private volatile ServerCounters.Window<?> window;
  private volatile Map<String, Long> clientBefore = Map.of();
  private Map<String, Long> lastInterval = Map.of();

  NodeCounts(Driver driver) {
    this.driver = driver;
  }

  /** The target's counters, or (when null) why it has none: that reason is what the report shows per node. */
  void serverCounters(ServerCounters<?> counters, String reasonWhenNone) {
    this.serverCounters = counters;
    this.noCountersReason = reasonWhenNone;
  }

  void targetName(String name) {
    this.targetName = name;
  }

  /** Takes the servers' and the driver's counts as the measured part begins. */
  void begin(ConsistencyLevel consistency) {
    ServerCounters<?> counters = serverCounters;
    window = counters == null ? null : counters.begin(consistency);
    clientBefore = new LinkedHashMap<>(driver.requestsByNode());
    lastInterval = clientBefore;
  }

  /** The driver's requests per node since the previous interval (called by the progress thread only). */
  Map<String, Long> sinceLastInterval() {
    Map<String, Long> now = driver.requestsByNode();
    Map<String, Long> perNode = new LinkedHashMap<>();
    now.forEach((n, c) -> perNode.put(nodeName(n), c - lastInterval.getOrDefault(n, 0L)));
    lastInterval = now;
    return perNode;
  }

  /**
   * One String per node for all the samples kept (the driver makes new ones on each call): an hour
   * of samples would otherwise hold 3600 copies of every node's name.
   */
  private String nodeName(String n) {
    String known = nodeNames.putIfAbsent(n, n);
    return known != null ? known : n;
  }

  /** Per node since {@link #begin}: {@code end} closes the servers' window, else it stays open. */
  List<NodeStat> stats(boolean end) {
    Map<String, Long> before = clientBefore;
    Map<String, Long> clientAfter = driver.requestsByNode();
    String noClient = driver.name() + " does not count requests per node";
    List<NodeStat> out = new ArrayList<>();
    List<NodeStat> server = null;
    String serverFailure = null;
    ServerCounters.Window<?> w = window;
    if (w != null) {
      try {
        server = end ? w.end() : w.peek();
      } catch (RuntimeException e) {
        serverFailure = "the servers' counters could not be read at the end: " + e.getMessage();
      }
    }
    if (server != null) {
      for (NodeStat n : server) {
        Long c = clientAfter.get(n.node());
        out.add(n.withClient(
            c == null ? Count.na(noClient) : Count.of(c - before.getOrDefault(n.node(), 0L))));
      }
    } else {
      String reason = serverFailure != null ? serverFailure : noCountersReason;
      clientAfter.forEach((node, c) -> out.add(NodeStat.clientOnly(
          node,
          "",
          Count.of(c - before.getOrDefault(node, 0L)),
          reason != null
              ? reason
              : "the target " + targetName + " gives no access to the servers' counters")));
    }
    return out;
  }
}
