package io.dyno.companion.dynomite;

import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * For tests against real Dynomite processes: the binary, or a skip that says how to give one. The
 * skip holds on CI too: no CI machine has Dynomite (it is in no package registry they reach), so
 * CI holds the companion to the real server through recorded transcripts instead. Where a binary
 * is given, {@code scripts/SurefireSummary.java} fails the run if any real-Dynomite test skipped.
 */
public final class DynomiteAssumptions {
  private DynomiteAssumptions() {}

  /** The Dynomite binary, or a skip naming how to provide one. */
  public static Path assumeBinary() {
    var binary = DynomiteCluster.binary();
    Assumptions.assumeTrue(binary.isPresent(), DynomiteCluster.binaryHint());
    return binary.get();
  }
}
