package io.dyno.loadgen.drivers;

import io.dyno.core.Host;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/** Requests a round-robin driver sent to each node, by the node's index in its host list. */
final class RequestsByNode {
  private final List<Host> hosts;
  private final AtomicLongArray counts;

  RequestsByNode(List<Host> hosts) {
    this.hosts = List.copyOf(hosts);
    this.counts = new AtomicLongArray(hosts.size());
  }

  void add(int node, long requests) {
    counts.addAndGet(node, requests);
  }

  /** Host id to count, in host-list order. */
  Map<String, Long> snapshot() {
    Map<String, Long> m = new LinkedHashMap<>();
    for (int i = 0; i < hosts.size(); i++) {
      m.put(hosts.get(i).id(), counts.get(i));
    }
    return m;
  }
}
