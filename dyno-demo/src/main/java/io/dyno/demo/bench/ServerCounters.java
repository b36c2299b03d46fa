package io.dyno.demo.bench;

import java.util.List;

/** Reads the servers' own per-node counters (cumulative); the bench reports the difference over the run. */
@FunctionalInterface
public interface ServerCounters {
  /** One entry per node; {@code clientRequests} is ignored. */
  List<NodeStat> snapshot();
}
