package io.dyno.companion;

import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(CompanionClusterExtension.class)
@CompanionClusterConfig(
    racks = 3,
    nodesPerRack = 2,
    backend = Backend.REDIS,
    peerTimeoutMillis = 500)
class RedisBackendFaultsTest extends FaultsContract {
  RedisBackendFaultsTest(CompanionCluster cluster) {
    super(cluster);
  }
}
