package io.dyno.loadgen.bench;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** The run's time line (faults, settings changed, pauses, stalls): the latest {@code max} events. */
final class EventLog {
  private final ArrayDeque<Bench.Event> events = new ArrayDeque<>();
  private int max = 1000;

  synchronized void keep(int max) {
    this.max = max;
  }

  synchronized void add(Bench.Event e) {
    events.addLast(e);
    while (events.size() > max) events.removeFirst();
  }

  synchronized List<Bench.Event> list() {
    return new ArrayList<>(events);
  }
}
