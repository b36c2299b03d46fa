package io.dyno.e2e.client;

import io.dyno.companion.containers.ContainerCluster;

/**
 * The client's failure suite against real Dynomite, in containers: the image
 * {@code -Ddyno.image.dynomite} names (scripts/test.sh builds {@code dyno/dynomite:local} from the
 * binary DYNO_DYNOMITE_BINARY names and passes it). Skipped, with that hint, when none is given;
 * scripts/test.sh fails on the skip when one is.
 */
class RealDynomiteClientFailureContainerTest extends ClientFailureSuite {
  RealDynomiteClientFailureContainerTest() {
    super(ContainerCluster.Server.DYNOMITE);
  }
}
