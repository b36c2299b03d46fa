package io.dyno.loadgen.bench;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The load callers of a run, one per slot of each {@link CallerKind}: as many as the settings in
 * force ask for. Callers beyond that notice their slot is gone and end; missing ones are started
 * at each {@link #adjust}.
 */
final class CallerSlots {
  private final Knobs knobs;
  private final String driverName;
  private final CallerLoops loops;
  private final Map<CallerKind, List<Thread>> callers = new ConcurrentHashMap<>();

  CallerSlots(Knobs knobs, String driverName, CallerLoops loops) {
    this.knobs = knobs;
    this.driverName = driverName;
    this.loops = loops;
  }

  /** Starts the warm-up's callers, all ending at {@code deadline}; they are not kept in the slots. */
  List<Thread> startWarmup(long deadline) {
    List<Thread> warm = new ArrayList<>();
    for (CallerKind k : CallerKind.values()) {
      for (int i = 0; i < k.wanted(knobs.config()); i++) warm.add(start(k, i, deadline, true));
    }
    return warm;
  }

  /** Starts the callers the settings ask for beyond those alive. */
  void adjust(long deadline) {
    for (CallerKind k : CallerKind.values()) {
      List<Thread> slots = callers.computeIfAbsent(k, x -> new CopyOnWriteArrayList<>());
      slots.removeIf(t -> !t.isAlive());
      Set<Integer> alive = new HashSet<>();
      for (Thread t : slots) alive.add(slotOf(t));
      for (int i = 0; i < k.wanted(knobs.config()); i++) {
        if (!alive.contains(i)) slots.add(start(k, i, deadline, false));
      }
    }
  }

  /** Every caller started for the measured part (alive or not). */
  List<Thread> all() {
    List<Thread> out = new ArrayList<>();
    callers.values().forEach(out::addAll);
    return out;
  }

  int alive() {
    return Callers.alive(callers.values());
  }

  private static int slotOf(Thread t) {
    String n = t.getName();
    return Integer.parseInt(n.substring(n.lastIndexOf('-') + 1));
  }

  /**
   * Warm-up callers are named apart ("bench-dyno-warmup-mixed-3"): what a thread dump or a JFR
   * recording shows of them (first-use class loading, say) is then told from the measured part's.
   */
  private Thread start(CallerKind kind, int slot, long deadline, boolean warm) {
    return Callers.start(
        knobs.config().virtualThreads > 0,
        "bench-" + driverName + (warm ? "-warmup-" : "-") + kind.name().toLowerCase() + "-" + slot,
        () -> loops.run(kind, slot, deadline));
  }
}
