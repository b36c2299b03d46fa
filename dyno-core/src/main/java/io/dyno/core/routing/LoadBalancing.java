package io.dyno.core.routing;

/** How the engine's router (see {@code DynoExecutor#route}) orders the nodes for a request. */
public enum LoadBalancing {
  /** The key's owners: local rack first, then the other racks (see {@link Topology#replicas(long)}). */
  TOKEN_AWARE,
  /**
   * For clients that cannot hash: rotate over the local rack's nodes, then the others. Dynomite
   * forwards each request to the key's owner (one extra hop).
   */
  ROUND_ROBIN
}
