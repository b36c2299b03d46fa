package io.dyno.loadgen.bench;

/** What every caller of a run checks before its next call: whether the run ends, whether it is paused. */
final class RunFlags {
  private volatile boolean stopRequested;
  private volatile boolean paused;

  boolean stopRequested() {
    return stopRequested;
  }

  /** Returns true the first time only. */
  boolean requestStop() {
    boolean first = !stopRequested;
    stopRequested = true;
    return first;
  }

  boolean paused() {
    return paused;
  }

  /** Returns true when this changed the state. */
  boolean paused(boolean p) {
    boolean changed = paused != p;
    paused = p;
    return changed;
  }
}
