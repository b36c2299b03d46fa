package io.dyno.core.routing;

/** Told after a new topology snapshot was swapped in (pools open for new nodes, drain removed ones). */
@FunctionalInterface
public interface TopologyListener {
  /**
   * A new snapshot is in use. Called on the thread that refreshed; should return quickly.
   *
   * @param previous the snapshot replaced (possibly the empty one)
   * @param current the snapshot now in use
   */
  void onTopologyChanged(Topology previous, Topology current);
}
