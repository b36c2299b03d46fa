package io.dyno.loadgen.bench;

import io.dyno.core.ConsistencyLevel;
import java.util.List;

/**
 * Reads the servers' own per-node counters. The bench takes a snapshot before and after the
 * measured part of a run and asks for the difference.
 *
 * @param <S> a snapshot of every node's cumulative counters
 */
public interface ServerCounters<S> {
  /** Every node's cumulative counters, read once they are current (Dynomite recomputes {@code /info} periodically). */
  S snapshot();

  /**
   * Per node, what happened between two snapshots; {@link NodeStat#clientRequests()} may be left
   * n/a (the bench fills it in from the driver).
   *
   * @param consistency the level the run's client asked for (it changes what a server's peer traffic means)
   */
  List<NodeStat> between(S before, S after, ConsistencyLevel consistency);

  /** Starts a measurement: takes the snapshot now; {@link Window#end()} takes the second one. */
  default Window<S> begin(ConsistencyLevel consistency) {
    return new Window<>(this, snapshot(), consistency);
  }

  /** The snapshot taken when a measurement began. */
  record Window<S>(ServerCounters<S> counters, S before, ConsistencyLevel consistency) {
    public List<NodeStat> end() {
      return counters.between(before, counters.snapshot(), consistency);
    }

    /** The same as {@link #end()}, for a report written while the run goes on (the window stays open). */
    public List<NodeStat> peek() {
      return end();
    }
  }
}
