package io.dyno.core.routing;

/** Told after a new topology snapshot was swapped in (pools open for new nodes, drain removed ones). */
@FunctionalInterface
public interface TopologyListener {
  void onTopologyChanged(Topology previous, Topology current);
}
