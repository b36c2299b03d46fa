package io.dyno.companion;

import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(CompanionClusterExtension.class)
@CompanionClusterConfig(
    racks = 3,
    nodesPerRack = 2,
    backend = Backend.MEMORY,
    peerTimeoutMillis = 500)
class MemoryBackendFaultsTest extends FaultsContract {
  MemoryBackendFaultsTest(CompanionCluster cluster) {
    super(cluster);
  }
}
