package io.dyno.core.topology;

import io.dyno.core.Host;
import io.dyno.core.HostSupplier;
import io.dyno.core.HostToken;
import io.dyno.core.TokenMapSupplier;
import io.dyno.core.routing.KeyHasher;
import io.dyno.core.routing.TokenRingTopology;
import io.dyno.core.routing.Topology;
import io.dyno.core.routing.TopologyException;
import java.util.List;

/**
 * Reads the host source and the token map once and builds the snapshot they describe. Everything
 * that can go wrong is thrown, for the refresher to keep the topology it has.
 */
final class TopologyReader {
  private final HostSupplier hostSupplier;
  private final TokenMapSupplier tokenMapSupplier;
  private final KeyHasher hasher;
  private final Locality locality;
  private final boolean rackAffinity;

  TopologyReader(
      HostSupplier hostSupplier,
      TokenMapSupplier tokenMapSupplier,
      KeyHasher hasher,
      Locality locality,
      boolean rackAffinity) {
    this.hostSupplier = hostSupplier;
    this.tokenMapSupplier = tokenMapSupplier;
    this.hasher = hasher;
    this.locality = locality;
    this.rackAffinity = rackAffinity;
  }

  /** {@return the snapshot before any refresh succeeded: no nodes, the configured locality} */
  Topology empty() {
    return TokenRingTopology.empty(hasher, locality.rack(), locality.datacenter());
  }

  /**
   * @param previous the snapshot in use; the new one gets the next version
   * @return the snapshot the sources describe now
   * @throws Exception whatever the sources throw, or a {@link TopologyException} when their answer
   *     cannot be served
   */
  TokenRingTopology read(Topology previous) throws Exception {
    List<HostToken> tokens;
    List<Host> hosts;
    if (hostSupplier == tokenMapSupplier && hostSupplier instanceof TopologySupplier both) {
      // One read gives both: hosts and tokens cannot disagree.
      tokens = both.getTokens(previous.hosts());
      hosts = null;
    } else {
      hosts = hostSupplier.getHosts();
      if (hosts == null || hosts.isEmpty()) {
        throw new IllegalStateException("host source " + hostSupplier + " returned no hosts");
      }
      tokens = tokenMapSupplier.getTokens(hosts);
    }
    if (tokens == null || tokens.isEmpty()) {
      throw new IllegalStateException("token map " + tokenMapSupplier + " returned no tokens");
    }
    TokenRingTopology.Builder b = TokenRingTopology.builder()
        .tokens(tokens)
        .hasher(effectiveHasher())
        .localRack(locality.rack())
        .localDatacenter(locality.datacenter())
        .rackAffinity(rackAffinity)
        .version(previous.version() + 1);
    if (hosts != null) {
      b.hosts(hosts);
    }
    return b.build();
  }

  /**
   * The configured hasher, or the cluster's own hash tag when the token source reports one and the
   * client configured none. A different configured tag is refused: keys would hash differently
   * from the servers' and reach the wrong nodes, with no error.
   */
  private KeyHasher effectiveHasher() {
    if (!(tokenMapSupplier instanceof HashtagSource source)) {
      return hasher;
    }
    String reported = source.clusterHashtag();
    if (reported == null || reported.isEmpty()) {
      return hasher;
    }
    String configured = hasher.hashtag();
    if (configured.isEmpty()) {
      try {
        return KeyHasher.forHashtag(reported);
      } catch (IllegalArgumentException e) {
        throw new TopologyException(
            "token map " + tokenMapSupplier + " reports the cluster's hash tag \"" + reported
                + "\", which is not usable: " + e.getMessage(),
            e);
      }
    }
    if (!configured.equals(reported)) {
      throw new TopologyException(
          "hash tag mismatch: this client is configured with \"" + configured
              + "\" but the cluster's token map " + tokenMapSupplier + " reports \"" + reported
              + "\"; keys would be"
              + " routed to the wrong nodes. Configure \"" + reported
              + "\" or leave the hash tag unset to use the cluster's");
    }
    return hasher;
  }
}
