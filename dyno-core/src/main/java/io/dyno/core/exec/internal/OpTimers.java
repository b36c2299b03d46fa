package io.dyno.core.exec.internal;

import com.netflix.spectator.api.Timer;
import io.dyno.core.metrics.internal.Meters;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The {@code dyno.op} timers of one engine, found for each call by its command, its {@link
 * Outcome} and its last node's rack without building a key: one lookup of the command (a string
 * whose hash is kept), an array slot, and a walk over the few racks seen, where {@link
 * Meters#opTimer} joins the three into a new string. The timers are the ones it hands out, asked
 * once per command, outcome and rack.
 */
final class OpTimers {
  private static final int OUTCOMES = Outcome.values().length;

  private final Meters metrics;
  // command → by outcome → the racks seen so far and their timers (replaced, never changed)
  private final Map<String, AtomicReferenceArray<Racks>> timers = new ConcurrentHashMap<>();

  OpTimers(Meters metrics) {
    this.metrics = metrics;
  }

  void record(String command, Outcome outcome, String rack, long nanos) {
    AtomicReferenceArray<Racks> byOutcome = timers.get(command);
    if (byOutcome == null) {
      byOutcome = timers.computeIfAbsent(command, c -> new AtomicReferenceArray<>(OUTCOMES));
    }
    Racks racks = byOutcome.get(outcome.ordinal());
    Timer t = racks == null ? null : racks.timer(rack);
    if (t == null) {
      t = metrics.opTimer(command, outcome.tag(), rack); // the same timer, whoever asks first
      byOutcome.set(outcome.ordinal(), Racks.with(racks, rack, t)); // a lost race: asked again
    }
    t.record(nanos, TimeUnit.NANOSECONDS);
  }

  /** Racks and their timers, side by side; a cluster has few racks, so a walk beats a hash. */
  private record Racks(String[] names, Timer[] timers) {
    Timer timer(String rack) {
      for (int i = 0; i < names.length; i++) {
        if (names[i] == rack || names[i].equals(rack)) {
          return timers[i];
        }
      }
      return null;
    }

    static Racks with(Racks before, String rack, Timer t) {
      int n = before == null ? 0 : before.names.length;
      String[] names = new String[n + 1];
      Timer[] timers = new Timer[n + 1];
      if (before != null) {
        System.arraycopy(before.names, 0, names, 0, n);
        System.arraycopy(before.timers, 0, timers, 0, n);
      }
      names[n] = rack;
      timers[n] = t;
      return new Racks(names, timers);
    }
  }
}
