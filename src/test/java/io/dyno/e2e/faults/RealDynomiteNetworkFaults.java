package io.dyno.e2e.faults;

import io.dyno.companion.containers.ContainerCluster;

/**
 * Issue #23's network faults against real Dynomite, in containers: the image
 * {@code -Ddyno.image.dynomite} names (scripts/test.sh builds {@code dyno/dynomite:local} from the
 * binary DYNO_DYNOMITE_BINARY names and passes it), in the same stage of scripts/test.sh as the
 * companion's. Skipped, with that hint, only when none is given.
 */
class RealDynomiteNetworkFaults extends NetworkFaultSuite {
  RealDynomiteNetworkFaults() {
    super(ContainerCluster.Server.DYNOMITE);
  }
}
