package io.dyno.spring.internal;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * A start the auto-configured client failed, told as what is wrong and the {@code dyno.*} property
 * to fix, in place of the stack trace: a property the starter cannot use
 * ({@link InvalidPropertyException}) or a client the cluster did not let start
 * ({@link ClientStartException}).
 */
public final class DynoStartFailureAnalyzer implements FailureAnalyzer {

  @Override
  public FailureAnalysis analyze(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 64; t = t.getCause(), depth++) {
      if (t instanceof InvalidPropertyException e) {
        return new FailureAnalysis(
            e.getMessage(),
            "Fix " + e.property() + " in the application's configuration (application.properties"
                + " or YAML, the environment, the command line); docs/spring-boot.md lists every"
                + " dyno.* property.",
            failure);
      }
      if (t instanceof ClientStartException e) {
        return new FailureAnalysis(e.getMessage(), e.action(), failure);
      }
    }
    return null;
  }
}
