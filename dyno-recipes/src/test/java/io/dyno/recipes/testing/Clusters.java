package io.dyno.recipes.testing;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.jedis.DynoJedisClient;

/** The companion cluster the recipes are tested on: 3 racks x 2 nodes, real redis-server backends, hash tag {}. */
public final class Clusters {
  private Clusters() {}

  public static CompanionCluster sixNodes() {
    return CompanionCluster.builder()
        .racks(3)
        .nodesPerRack(2)
        .backend(Backend.REDIS)
        .hashtag("{}")
        .start();
  }

  /** A Dyno client as one application instance running in {@code rack}. */
  public static DynoJedisClient client(CompanionCluster cluster, String app, String rack) {
    return DynoJedisClient.builder()
        .applicationName(app)
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack(rack)
        .hashtag("{}")
        .build();
  }
}
