package io.dyno.loadgen.bench;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The failures of a run counted by kind (the exception's class and message, numbers folded). The
 * kinds are capped: messages that differ in more than numbers could otherwise grow without end.
 */
final class ErrorKinds {
  static final int MAX_KINDS = 50;

  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

  /** Counts {@code n} failures described by {@code text}; returns the kind they were counted under. */
  String count(String text, long n) {
    String kind = counts.containsKey(text) || counts.size() < MAX_KINDS
        ? text
        : "other (more than " + MAX_KINDS + " kinds of error)";
    counts.computeIfAbsent(kind, k -> new LongAdder()).add(n);
    return kind;
  }

  /** Every kind and its count so far. */
  Map<String, Long> asMap() {
    Map<String, Long> m = new LinkedHashMap<>();
    counts.forEach((k, v) -> m.put(k, v.sum()));
    return m;
  }

  /** The kind of a failure: its class and message, numbers (ports, counts) as N, at most 160 characters. */
  static String describe(Throwable e) {
    String msg = e.getMessage();
    if (msg != null) {
      msg = msg.replaceAll("[0-9]+", "N");
      if (msg.length() > 160) msg = msg.substring(0, 160) + "...";
    }
    return e.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
  }
}
