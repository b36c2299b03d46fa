package io.dyno.companion.dynomite;

import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * For tests against real Dynomite processes: the binary, or a skip that says what is missing. In
 * CI (environment {@code CI=true}) a missing binary fails instead, since CI always has
 * {@code ../shared/dynomite/dynomite} beside the clone and a skip there would hide a broken set-up.
 */
public final class DynomiteAssumptions {
  private DynomiteAssumptions() {}

  /** The Dynomite binary, or a skip (locally) / failure (CI) naming how to provide one. */
  public static Path assumeBinary() {
    var binary = DynomiteCluster.binary();
    if (binary.isEmpty() && "true".equalsIgnoreCase(System.getenv("CI"))) {
      throw new IllegalStateException("CI=true but " + DynomiteCluster.binaryHint());
    }
    Assumptions.assumeTrue(binary.isPresent(), DynomiteCluster.binaryHint());
    return binary.get();
  }
}
