package io.dyno.e2e.faults;

import io.dyno.companion.containers.ContainerCluster;

/**
 * Issue #23's network faults against this project's companion server, in containers. Not yet in
 * the default run (no {@code Test} suffix): its loss and reset-storm checks do not hold in every run
 * yet (docs/node-faults.md); run it by name, {@code -Dtest=CompanionNetworkFaults}.
 */
class CompanionNetworkFaults extends NetworkFaultSuite {
  CompanionNetworkFaults() {
    super(ContainerCluster.Server.COMPANION);
  }
}
