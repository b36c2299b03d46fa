package io.dyno.eureka.internal;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;

/**
 * Logs each instance a Eureka source left out once, not on every refresh: a bad instance stays in
 * Eureka's answer until someone fixes it, and the host source is asked every 30 s. Shared by the
 * REST reader and the EurekaClient adapter so both report the same way.
 */
public final class SkippedInstances {
  private final Logger log;
  private volatile Set<String> warned = Set.of();

  public SkippedInstances(Logger log) {
    this.log = log;
  }

  /** Warns about each reason not warned about at the last report; forgets the ones that went away. */
  public void report(List<String> skipped) {
    Set<String> before = warned;
    if (skipped.isEmpty()) {
      if (!before.isEmpty()) {
        warned = Set.of();
      }
      return;
    }
    for (String s : skipped) {
      if (!before.contains(s)) {
        log.warn("Eureka: left out {}", s);
      }
    }
    warned = new HashSet<>(skipped);
  }
}
