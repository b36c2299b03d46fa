package io.dyno.demo.target;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.demo.bench.ServerCounters;
import java.util.List;

/**
 * The cluster a bench or demo talks to: the embedded companion cluster, the cluster a
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
  default ServerCounters serverCounters() {
    return null;
  }

  @Override
  void close();

  /**
   * Parses a target spec: {@code embedded} (handled by the caller), {@code describe:<url>}
   * (Dynomite's or Dynomite-manager's cluster_describe) or {@code nodes:<host:port:rack:token>,...}.
   */
  static Target parse(String spec) {
    if (spec.startsWith("describe:")) {
      return DescribeTarget.fetch(spec.substring("describe:".length()));
    }
    if (spec.startsWith("nodes:")) {
      return StaticTarget.parse(spec.substring("nodes:".length()));
    }
    throw new IllegalArgumentException("target \"" + spec
        + "\": expected embedded, describe:<http://host:port/cluster_describe> or nodes:<host:port:rack:token>,...");
  }
}
