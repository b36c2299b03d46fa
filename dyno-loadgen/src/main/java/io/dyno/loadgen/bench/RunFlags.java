package io.dyno.loadgen.bench;

/** What every caller of a run checks before its next call: whether the run ends, whether it is paused. */
final class RunFlags {
  private volatile boolean stopRequested;
  private volatile boolean paused;

  boolean stopRequested() {
    return stopRequested;
  }

  void requestStop() {
    stopRequested = true;
  }

  boolean paused() {
    return paused;
  }

  void paused(boolean p) {
    paused = p;
  }
}
