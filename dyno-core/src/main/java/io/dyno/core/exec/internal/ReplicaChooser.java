package io.dyno.core.exec.internal;

import io.dyno.core.Host;
import io.dyno.core.health.internal.HealthTracker;
import java.util.List;

/**
 * Which of one call's candidates runs its next attempt. The candidates come in preference order
 * (the local rack's owner first) from the plan; this class only walks them: the first untried
 * healthy one, then an untried unhealthy one, then — when re-running is allowed — a tried one
 * (healthy first, else the current). Moving to another node stops once {@code maxFailovers} moves
 * were made. After {@link #stayInRack}, only that rack's candidates are considered. Any number of
 * candidates.
 */
final class ReplicaChooser {
  static final int NONE = -1;

  private final List<Host> candidates;
  private final boolean[] tried;
  private int triedCount;
  private int current = NONE;
  private int failovers;
  private String onlyRack; // null: any rack

  ReplicaChooser(List<Host> candidates) {
    this.candidates = candidates;
    this.tried = new boolean[candidates.size()];
  }

  /** The index of the next candidate, or {@link #NONE} when none may be used. Pure: call {@link #moveTo} to use it. */
  int next(HealthTracker health, int maxFailovers, boolean mayRerun) {
    boolean mayMove = current == NONE || failovers < maxFailovers;
    if (mayMove) {
      int unhealthy = NONE;
      for (int i = 0; i < tried.length; i++) {
        if (!tried[i] && allowed(i)) {
          if (health.isUp(candidates.get(i))) {
            return i;
          }
          if (unhealthy == NONE) {
            unhealthy = i;
          }
        }
      }
      if (unhealthy != NONE) {
        return unhealthy;
      }
    }
    if (!mayRerun || current == NONE) {
      return NONE;
    }
    if (mayMove) {
      for (int i = 0; i < tried.length; i++) {
        if (allowed(i) && health.isUp(candidates.get(i))) {
          return i;
        }
      }
    }
    return current;
  }

  /** From now on only candidates of {@code rack} are chosen (retryPolicy's allowCrossRackFallback=false). */
  void stayInRack(String rack) {
    this.onlyRack = rack;
  }

  private boolean allowed(int i) {
    return onlyRack == null || onlyRack.equals(candidates.get(i).rack());
  }

  /** Makes candidate {@code i} the current one; true when it moved away from another node (a failover). */
  boolean moveTo(int i) {
    boolean failover = current != NONE && i != current;
    if (failover) {
      failovers++;
    }
    current = i;
    if (!tried[i]) {
      tried[i] = true;
      triedCount++;
    }
    return failover;
  }

  boolean wasTried(int i) {
    return tried[i];
  }

  Host host(int i) {
    return candidates.get(i);
  }

  int size() {
    return candidates.size();
  }

  int failovers() {
    return failovers;
  }

  /** True while some candidate has not been tried yet. */
  boolean hasUntried() {
    if (onlyRack == null) {
      return triedCount < tried.length;
    }
    for (int i = 0; i < tried.length; i++) {
      if (!tried[i] && allowed(i)) {
        return true;
      }
    }
    return false;
  }
}
