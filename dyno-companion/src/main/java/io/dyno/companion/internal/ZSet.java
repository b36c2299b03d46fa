package io.dyno.companion.internal;

import io.dyno.companion.internal.Keyspace.Key;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.TreeSet;

/** A sorted set's value: score per member plus {score, member} entries in Redis order (score, then bytes). */
final class ZSet {
  final HashMap<Key, Double> scores = new HashMap<>();
  final TreeSet<Object[]> order = new TreeSet<>((x, y) -> {
    int c = Double.compare((Double) x[0], (Double) y[0]);
    return c != 0 ? c : Arrays.compareUnsigned(((Key) x[1]).b(), ((Key) y[1]).b());
  });

  boolean put(Key m, double s) {
    Double old = scores.put(m, s);
    if (old != null) {
      order.remove(new Object[] {old, m});
    }
    order.add(new Object[] {s, m});
    return old == null;
  }

  boolean remove(Key m) {
    Double old = scores.remove(m);
    if (old == null) return false;
    order.remove(new Object[] {old, m});
    return true;
  }

  List<Object[]> list() {
    return new ArrayList<>(order);
  }
}
