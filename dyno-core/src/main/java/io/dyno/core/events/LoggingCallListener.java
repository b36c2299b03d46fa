package io.dyno.core.events;

import io.dyno.core.Host;
import io.dyno.core.internal.KeyText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One line per call: which node served it and why, e.g.
 * <pre>
 * GET "user:1" served by 127.0.0.1:8102 (dc1/rack2) on attempt 2: failover from 127.0.0.1:8101 (dc1/rack1) after Connection refused (connection error) [2.3 ms]
 * </pre>
 * or, for a call that failed, its last attempt and the error. Keys are shown escaped (a binary key
 * stays readable and on one line), values never.
 *
 * <p>The engine installs {@link #debugLog()} by itself when this class's logger
 * ({@code io.dyno.core.events.LoggingCallListener}) is DEBUG-enabled when the engine is built;
 * otherwise nothing is installed and calls pay nothing. Installed explicitly, {@link #debugLog()}
 * follows the logger's level at run time (one level check per call while it is off); {@link #to}
 * sends the lines anywhere.
 */
public final class LoggingCallListener implements CallListener {
  private static final Logger log = LoggerFactory.getLogger(LoggingCallListener.class);
  private static final CallListener.Factory DEBUG_LOG =
      () -> log.isDebugEnabled() ? new LoggingCallListener(log::debug) : CallListener.NONE;

  /** One attempt as this listener keeps it. */
  private static final class Attempt {
    final int number;
    final Host node;
    final AttemptReason reason;
    final Attempt
        before; // the attempt the reason refers to: the one that ended last, or for a hedge the one
    // in flight
    AttemptOutcome outcome; // null while in flight
    Throwable failure;

    Attempt(int number, Host node, AttemptReason reason, Attempt before) {
      this.number = number;
      this.node = node;
      this.reason = reason;
      this.before = before;
    }
  }

  private final Consumer<String> sink;
  // guarded by this: a hedged read's attempts may end on two threads at once
  private String command;
  private Object key;
  private List<Host> candidates = List.of();
  private final List<Attempt> attempts = new ArrayList<>(2);
  private Attempt lastEnded;
  private boolean ended;

  private LoggingCallListener(Consumer<String> sink) {
    this.sink = sink;
  }

  /**
   * {@return a factory writing one line per call at DEBUG to this class's logger} A call made while the
   * logger is not DEBUG-enabled is not followed (costs nothing). One shared instance.
   */
  public static CallListener.Factory debugLog() {
    return DEBUG_LOG;
  }

  /**
   * A factory writing one line per call to {@code sink}, from the thread that ends the call.
   *
   * @param sink takes each line; must not block (it may run on an I/O thread) and must be thread-safe
   * @return the factory
   */
  public static CallListener.Factory to(Consumer<String> sink) {
    Objects.requireNonNull(sink, "sink");
    return () -> new LoggingCallListener(sink);
  }

  /**
   * {@return whether this class's logger is DEBUG-enabled now} The engine installs {@link #debugLog()}
   * when it is at build.
   */
  public static boolean debugEnabled() {
    return log.isDebugEnabled();
  }

  @Override
  public synchronized void callStart(String command, Object key, List<Host> candidates) {
    this.command = command;
    this.key = key;
    this.candidates = candidates;
  }

  @Override
  public synchronized void attemptStart(int attempt, Host node, AttemptReason reason) {
    boolean hedge = reason == AttemptReason.HEDGE && !attempts.isEmpty();
    attempts.add(
        new Attempt(attempt, node, reason, hedge ? attempts.get(attempts.size() - 1) : lastEnded));
  }

  @Override
  public synchronized void attemptEnd(
      int attempt, Host node, AttemptOutcome outcome, Throwable failure) {
    for (Attempt a : attempts) {
      if (a.number == attempt) {
        a.outcome = outcome;
        a.failure = failure;
        lastEnded = a;
      }
    }
  }

  @Override
  public void callEnd(Throwable failure, int attempts, long elapsedNanos) {
    String line;
    synchronized (this) {
      if (ended) {
        return;
      }
      ended = true;
      line = line(failure, attempts, elapsedNanos);
    }
    sink.accept(line);
  }

  private String line(Throwable failure, int count, long elapsedNanos) {
    StringBuilder sb = new StringBuilder(160).append(command);
    if (key != null) {
      sb.append(' ').append(KeyText.show(key));
    }
    Attempt served = null;
    for (Attempt a : attempts) {
      if (a.outcome == AttemptOutcome.SUCCESS) {
        served = a; // only one: a slower answer is DISCARDED
        break;
      }
    }
    if (failure == null && served != null) {
      sb.append(" served by ")
          .append(node(served.node))
          .append(" on attempt ")
          .append(served.number)
          .append(": ")
          .append(why(served));
    } else {
      sb.append(" failed after ").append(count).append(count == 1 ? " attempt" : " attempts");
      Attempt last = attempts.isEmpty() ? null : attempts.get(attempts.size() - 1);
      if (last != null) {
        sb.append(", the last on ")
            .append(node(last.node))
            .append(" (")
            .append(why(last))
            .append(')');
      }
      sb.append(": ")
          .append(
              failure == null
                  ? "no result"
                  : failure.getClass().getSimpleName() + ": "
                      + oneLine(String.valueOf(failure.getMessage())));
    }
    return sb.append(String.format(Locale.ROOT, " [%.1f ms]", elapsedNanos / 1e6))
        .toString();
  }

  /** Why the attempt went to its node, naming the node and failure it moved on from. */
  private String why(Attempt a) {
    Attempt b = a.before;
    return switch (a.reason) {
      case PREFERRED -> "preferred node";
      case REMEMBERED_RACK -> "the key's remembered rack, its last write was served here";
      case STEERED -> "preferred " + skipped(a.node) + " steered away from for latency";
      case PREFERRED_DOWN -> "preferred " + skipped(a.node) + " marked down";
      case FAILOVER ->
        b == null ? "failover" : "failover from " + node(b.node) + " after " + failure(b);
      case RETRY -> b == null ? "retry" : "retry on the same node after " + failure(b);
      case SAME_NODE_RESEND -> b == null ? "resent" : "resent to the same node after " + failure(b);
      case HEDGE ->
        b == null ? "hedged read" : "hedged read, " + node(b.node) + " had not answered yet";
    };
  }

  /** The candidates before {@code chosen} in the call's order: the ones node health ruled out. */
  private String skipped(Host chosen) {
    List<String> names = new ArrayList<>(2);
    for (Host h : candidates) {
      if (h.equals(chosen)) {
        break;
      }
      names.add(node(h));
    }
    return String.join(" and ", names) + (names.size() == 1 ? " is" : " are");
  }

  private static String failure(Attempt a) {
    String what = a.outcome == null
        ? "no answer yet"
        : switch (a.outcome) {
          case SUCCESS, DISCARDED -> "an answer";
          case NOT_SENT -> "before sending";
          case CONNECTION_ERROR -> "connection error";
          case TIMEOUT -> "timeout";
          case REPLICA_ERROR -> "replica error";
          case DATA_ERROR -> "data error";
        };
    return a.failure == null ? what : innermostMessage(a.failure) + " (" + what + ")";
  }

  /** The root cause's message: "Connection refused" says more than the wrappers around it. */
  private static String innermostMessage(Throwable t) {
    Throwable root = t;
    for (int i = 0; i < 16 && root.getCause() != null && root.getCause() != root; i++) {
      root = root.getCause();
    }
    String m = root.getMessage();
    return oneLine(m == null || m.isBlank() ? root.getClass().getSimpleName() : m);
  }

  private static String node(Host h) {
    return h.id() + " (" + h.datacenter() + "/" + h.rack() + ")";
  }

  private static String oneLine(String s) {
    return s.replace('\r', ' ').replace('\n', ' ');
  }
}
