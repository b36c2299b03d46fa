package io.dyno.core.topology;

/**
 * A token source that also learns the cluster's hash tag (Dynomite-manager's
 * {@code cluster_describe} reports it per node). {@link TopologyRefresher} uses it when the client
 * configured none, and refuses a different one: keys would otherwise be hashed differently from
 * the servers and go to the wrong nodes.
 */
public interface HashtagSource {
  /**
   * {@return the hash tag reported by the latest successful read (e.g. {@code "{}"}), or null when none
   * is}
   */
  String clusterHashtag();
}
