package io.dyno.loadgen.target;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.loadgen.bench.Count;
import io.dyno.loadgen.bench.NodeStat;
import io.dyno.loadgen.bench.ServerCounters;
import io.dyno.loadgen.bench.ServerCpu;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster a bench talks to: the embedded companion cluster, the cluster a
 * {@code /cluster_describe} URL describes, or a static node list. {@link #close()} is idempotent
 * and stops only what the target itself started.
 */
public interface Target extends AutoCloseable {
  /** A one-line description for reports. */
  String describe();

  /** Every node, with its client port, rack and status. */
  List<Host> hosts();

  /** The token map. */
  List<HostToken> tokens();

  /** The rack a client should treat as local (the first rack when nothing better is known). */
  default String localRack() {
    return hosts().get(0).rack();
  }

  /** The servers' own counters, or null when the target cannot read them. */
  default ServerCounters<?> serverCounters() {
    return null;
  }

  /** Why {@link #serverCounters()} is null, for the per-node "n/a" cells. */
  default String noServerCountersReason() {
    return "this target does not read the servers' counters";
  }

  /**
   * The server processes this target started (their CPU time is read per run), or null when it
   * started none it can name; then {@link #noServerCpuReason()} says why.
   */
  default ServerCpu serverCpu() {
    return null;
  }

  /** Why {@link #serverCpu()} is null, for the report's "n/a". */
  default String noServerCpuReason() {
    return "the servers were not started by this tool (their processes are not known)";
  }

  /**
   * Name prefix of this JVM's threads that serve the cluster (a cluster embedded in the client's
   * JVM), whose CPU is the servers' and not the client's ({@link
   * io.dyno.loadgen.bench.ClientCpu}); null when the servers run elsewhere.
   */
  default String serverThreadPrefix() {
    return null;
  }

  /** after − before per node and per count (n/a stays n/a); nodes matched by id. */
  static List<NodeStat> deltas(List<NodeStat> before, List<NodeStat> after) {
    Map<String, NodeStat> b = new HashMap<>();
    before.forEach(n -> b.put(n.node(), n));
    return after.stream()
        .map(a -> {
          NodeStat s = b.get(a.node());
          if (s == null) {
            Count na = Count.na("node " + a.node() + " appeared during the run");
            return new NodeStat(a.node(), a.rack(), na, na, na, na);
          }
          return new NodeStat(
              a.node(),
              a.rack(),
              minus(a.clientRequests(), s.clientRequests()),
              minus(a.serverRequests(), s.serverRequests()),
              minus(a.serverForwarded(), s.serverForwarded()),
              minus(a.backendServed(), s.backendServed()));
        })
        .toList();
  }

  private static Count minus(Count a, Count b) {
    if (!a.available()) return a;
    if (!b.available()) return b;
    return Count.of(a.value() - b.value());
  }

  @Override
  void close();

  /**
   * Parses a target spec: {@code auto}, {@code dynomite}, {@code companion} (handled by the caller), {@code describe:<url>}
   * (Dynomite's or Dynomite-manager's cluster_describe) or {@code nodes:<host:port:rack:token>,...}.
   */
  static Target parse(String spec) {
    if (spec.startsWith("describe:")) {
      return DescribeTarget.fetch(spec.substring("describe:".length()));
    }
    if (spec.startsWith("nodes:")) {
      return StaticTarget.parse(spec.substring("nodes:".length()));
    }
    throw new IllegalArgumentException(
        "target \"" + spec
            + "\": expected auto, dynomite, companion (or embedded), describe:<http://host:port/cluster_describe> or nodes:<host:port:rack:token>,...");
  }
}
