package io.dyno.core.exec.internal;

import io.dyno.core.Host;
import io.dyno.core.health.internal.HealthTracker;
import java.util.List;

/**
 * Which of one call's candidates runs its next attempt: the candidate walk of a {@link CallDecider},
 * which holds one per call. The candidates come in preference order
 * (the local rack's owner first) from the plan; this class only walks them: the first untried
 * preferred one (in rotation and not steered away from for its latency, see
 * {@link HealthTracker#isPreferred}), then an untried one merely steered away from, then one out
 * of rotation (a slow node answers; a silent one would hold the attempt for its share), then — when re-running is allowed —
 * a tried one (preferred first, else the current). Moving to another node stops once {@code maxFailovers} moves
 * were made. After {@link #stayInRack}, only that rack's candidates are considered. Any number of
 * candidates.
 */
final class ReplicaChooser {
  static final int NONE = -1;

  // Bits of candidates tried, for the usual few (an int: every call allocates a chooser, so its
  // fields are kept few and small).
  private static final int BITS = Integer.SIZE;

  private final List<Host> candidates;
  private int triedBits; // candidate i < BITS was tried: bit i (no array for the usual few)
  private boolean[] triedBeyond; // candidates from the 33rd on; null until one is tried
  private int current = NONE;
  private int failovers;
  private String onlyRack; // null: any rack

  ReplicaChooser(List<Host> candidates) {
    this.candidates = candidates;
  }

  /** The index of the next candidate, or {@link #NONE} when none may be used. Pure: call {@link #moveTo} to use it. */
  int choose(HealthTracker health, int maxFailovers, boolean mayRerun) {
    boolean mayMove = current == NONE || failovers < maxFailovers;
    int size = candidates.size();
    if (mayMove) {
      int steered = NONE; // in rotation, but steered away from for its latency
      int down = NONE; // out of rotation: the last resort
      for (int i = 0; i < size; i++) {
        if (!wasTried(i) && allowed(i)) {
          Host h = candidates.get(i);
          if (health.isPreferred(h)) {
            return i;
          }
          if (health.isUp(h)) {
            steered = steered == NONE ? i : steered;
          } else if (down == NONE) {
            down = i;
          }
        }
      }
      if (steered != NONE) {
        return steered;
      }
      if (down != NONE) {
        return down;
      }
    }
    if (!mayRerun || current == NONE) {
      return NONE;
    }
    if (mayMove) {
      for (int i = 0; i < size; i++) {
        if (allowed(i) && health.isPreferred(candidates.get(i))) {
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
    if (!wasTried(i)) {
      if (i < BITS) {
        triedBits |= 1 << i;
      } else {
        if (triedBeyond == null) {
          triedBeyond = new boolean[candidates.size() - BITS];
        }
        triedBeyond[i - BITS] = true;
      }
    }
    return failover;
  }

  boolean wasTried(int i) {
    if (i < BITS) {
      return (triedBits & (1 << i)) != 0;
    }
    return triedBeyond != null && triedBeyond[i - BITS];
  }

  /** The candidates in the order this call walks them (a remembered rack's first, see {@link WriteSafety#candidatesFor}). */
  List<Host> candidates() {
    return candidates;
  }

  Host candidate(int i) {
    return candidates.get(i);
  }

  int candidateCount() {
    return candidates.size();
  }

  /** The index of the node of the last {@link #moveTo}; {@link #NONE} before the first. */
  int current() {
    return current;
  }

  int failovers() {
    return failovers;
  }

  /**
   * How many more nodes the call could still move to: the untried candidates it may use, bounded
   * by the failovers it has left.
   */
  int movesLeft(int maxFailovers) {
    int untried = 0;
    for (int i = 0, size = candidates.size(); i < size; i++) {
      if (!wasTried(i) && allowed(i)) {
        untried++;
      }
    }
    return Math.min(untried, Math.max(0, maxFailovers - failovers));
  }

  /** True while some candidate has not been tried yet. */
  boolean hasUntried() {
    for (int i = 0, size = candidates.size(); i < size; i++) {
      if (!wasTried(i) && allowed(i)) {
        return true;
      }
    }
    return false;
  }
}
