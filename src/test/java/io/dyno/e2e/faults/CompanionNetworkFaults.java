package io.dyno.e2e.faults;

import io.dyno.companion.containers.ContainerCluster;

/**
 * Issue #23's network faults against this project's companion server, in containers. No {@code
 * Test} suffix: {@code scripts/test.sh} runs it in a stage of its own after the other tests, so that
 * nothing else loads the machine while it measures; by hand, {@code -Dtest=CompanionNetworkFaults}.
 */
class CompanionNetworkFaults extends NetworkFaultSuite {
  CompanionNetworkFaults() {
    super(ContainerCluster.Server.COMPANION);
  }
}
