package io.dyno.e2e.client;

import io.dyno.companion.containers.ContainerCluster;

/** The client's failure suite against this project's companion server, in containers. */
class CompanionClientFailureContainerTest extends ClientFailureSuite {
  CompanionClientFailureContainerTest() {
    super(ContainerCluster.Server.COMPANION);
  }
}
