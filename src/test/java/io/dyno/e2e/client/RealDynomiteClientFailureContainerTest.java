package io.dyno.e2e.client;

import io.dyno.companion.containers.ContainerCluster;

/**
 * The client's failure suite against real Dynomite, in containers: the image
 * {@code -Ddyno.image.dynomite} names, else {@code dyno/dynomite:local} (scripts/build-images.sh
 * builds it from ../shared/dynomite/dynomite). Skipped, with that hint, when neither exists; CI
 * fails on the skip when the image exists.
 */
class RealDynomiteClientFailureContainerTest extends ClientFailureSuite {
  RealDynomiteClientFailureContainerTest() {
    super(ContainerCluster.Server.DYNOMITE);
  }
}
