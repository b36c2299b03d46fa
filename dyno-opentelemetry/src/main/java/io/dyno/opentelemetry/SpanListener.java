package io.dyno.opentelemetry;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.Host;
import io.dyno.core.events.AttemptOutcome;
import io.dyno.core.events.AttemptReason;
import io.dyno.core.events.CallListener;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One call's span (see {@link DynoTracing} for what it carries). The span starts at
 * {@link #callStart} under the context the factory captured on the caller's thread, and ends at
 * {@link #callEnd}, which may run on an I/O thread. Synchronized: a hedged read's two attempts may
 * end on two threads at once, and the one that lost may end after the call (its event is then
 * dropped: the span has ended).
 */
final class SpanListener implements CallListener {
  static final AttributeKey<String> DB_SYSTEM_NAME = AttributeKey.stringKey("db.system.name");
  static final AttributeKey<String> DB_OPERATION_NAME = AttributeKey.stringKey("db.operation.name");
  static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
  static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> EXCEPTION_TYPE = AttributeKey.stringKey("exception.type");
  static final AttributeKey<String> EXCEPTION_MESSAGE = AttributeKey.stringKey("exception.message");
  static final AttributeKey<String> RACK = AttributeKey.stringKey("dyno.rack");
  static final AttributeKey<String> DATACENTER = AttributeKey.stringKey("dyno.datacenter");
  static final AttributeKey<Long> ATTEMPTS = AttributeKey.longKey("dyno.attempts");
  static final AttributeKey<Boolean> FAILOVER = AttributeKey.booleanKey("dyno.failover");
  static final AttributeKey<Boolean> HEDGE_SENT = AttributeKey.booleanKey("dyno.hedge.sent");
  static final AttributeKey<Boolean> HEDGE_WON = AttributeKey.booleanKey("dyno.hedge.won");
  static final AttributeKey<String> CONSISTENCY = AttributeKey.stringKey("dyno.consistency");
  static final AttributeKey<Boolean> PIPELINE = AttributeKey.booleanKey("dyno.pipeline");
  static final AttributeKey<Long> ATTEMPT_NUMBER = AttributeKey.longKey("dyno.attempt.number");
  static final AttributeKey<String> ATTEMPT_REASON = AttributeKey.stringKey("dyno.attempt.reason");
  static final AttributeKey<String> ATTEMPT_OUTCOME =
      AttributeKey.stringKey("dyno.attempt.outcome");
  static final String ATTEMPT_EVENT = "dyno.attempt";
  /** Dyno's command name for one node's part of a pipeline (as in the {@code dyno.op} meters). */
  static final String PIPELINE_COMMAND = "PIPELINE";
  /** The outcome of an attempt still in flight when the call ended (a hedged read's loser). */
  static final String IN_FLIGHT = "in_flight";

  private static final String[] REASONS = lowerCaseNames(AttemptReason.values());
  private static final String[] OUTCOMES = lowerCaseNames(AttemptOutcome.values());

  /** One attempt as the span keeps it until it ends. */
  private static final class Attempt {
    final int number;
    final Host node;
    final AttemptReason reason;
    boolean ended;

    Attempt(int number, Host node, AttemptReason reason) {
      this.number = number;
      this.node = node;
      this.reason = reason;
    }
  }

  private final Tracer tracer;
  private final Context parent;
  // guarded by this
  private Span span; // null before callStart; after callEnd, ended
  private boolean recording;
  private boolean ended;
  private List<Attempt> attempts = List.of(); // a list of its own once the span records
  private Attempt served;
  private boolean failover;
  private boolean hedgeSent;

  SpanListener(Tracer tracer, Context parent) {
    this.tracer = tracer;
    this.parent = parent;
  }

  @Override
  public synchronized void callStart(String command, Object key, List<Host> candidates) {
    var builder = tracer
        .spanBuilder(command)
        .setParent(parent)
        .setSpanKind(SpanKind.CLIENT)
        .setAttribute(DB_SYSTEM_NAME, "redis")
        .setAttribute(DB_OPERATION_NAME, command);
    if (PIPELINE_COMMAND.equals(command)) {
      builder.setAttribute(PIPELINE, true);
    }
    span = builder.startSpan();
    recording = span.isRecording(); // a span the sampler dropped: nothing more to do
    if (recording) {
      attempts = new ArrayList<>(2);
    }
  }

  @Override
  public synchronized void consistency(ConsistencyLevel level) {
    if (recording && level != null) {
      span.setAttribute(CONSISTENCY, level.name());
    }
  }

  @Override
  public synchronized void attemptStart(int attempt, Host node, AttemptReason reason) {
    if (!recording) {
      return;
    }
    attempts.add(new Attempt(attempt, node, reason));
    if (reason == AttemptReason.FAILOVER) {
      failover = true;
    } else if (reason == AttemptReason.HEDGE) {
      hedgeSent = true;
    }
  }

  @Override
  public synchronized void attemptEnd(
      int attempt, Host node, AttemptOutcome outcome, Throwable failure) {
    if (!recording || ended) {
      return;
    }
    Attempt a = find(attempt);
    if (a == null || a.ended) {
      return;
    }
    a.ended = true;
    if (outcome == AttemptOutcome.SUCCESS) {
      served = a;
    }
    span.addEvent(ATTEMPT_EVENT, attemptAttributes(a, OUTCOMES[outcome.ordinal()], failure));
  }

  @Override
  public synchronized void callEnd(Throwable failure, int attemptCount, long elapsedNanos) {
    if (!recording || ended) {
      return;
    }
    ended = true;
    for (Attempt a : attempts) {
      if (!a.ended) {
        span.addEvent(ATTEMPT_EVENT, attemptAttributes(a, IN_FLIGHT, null));
      }
    }
    Attempt where =
        served != null ? served : attempts.isEmpty() ? null : attempts.get(attempts.size() - 1);
    if (where != null) {
      Host h = where.node;
      span.setAttribute(SERVER_ADDRESS, h.hostname());
      span.setAttribute(SERVER_PORT, (long) h.port());
      span.setAttribute(RACK, h.rack());
      span.setAttribute(DATACENTER, h.datacenter());
    }
    span.setAttribute(ATTEMPTS, (long) attemptCount);
    span.setAttribute(FAILOVER, failover);
    span.setAttribute(HEDGE_SENT, hedgeSent);
    span.setAttribute(HEDGE_WON, served != null && served.reason == AttemptReason.HEDGE);
    if (failure != null) {
      span.setAttribute(ERROR_TYPE, failure.getClass().getName());
      span.recordException(failure);
      span.setStatus(StatusCode.ERROR, String.valueOf(failure.getMessage()));
    }
    span.end();
  }

  private Attempt find(int number) {
    for (int i = attempts.size() - 1; i >= 0; i--) {
      Attempt a = attempts.get(i);
      if (a.number == number) {
        return a;
      }
    }
    return null;
  }

  private static Attributes attemptAttributes(Attempt a, String outcome, Throwable failure) {
    AttributesBuilder b = Attributes.builder()
        .put(ATTEMPT_NUMBER, (long) a.number)
        .put(ATTEMPT_REASON, REASONS[a.reason.ordinal()])
        .put(ATTEMPT_OUTCOME, outcome)
        .put(SERVER_ADDRESS, a.node.hostname())
        .put(SERVER_PORT, (long) a.node.port())
        .put(RACK, a.node.rack());
    if (failure != null) {
      b.put(EXCEPTION_TYPE, failure.getClass().getName());
      if (failure.getMessage() != null) {
        b.put(EXCEPTION_MESSAGE, failure.getMessage());
      }
    }
    return b.build();
  }

  private static String[] lowerCaseNames(Enum<?>[] values) {
    String[] names = new String[values.length];
    for (Enum<?> v : values) {
      names[v.ordinal()] = v.name().toLowerCase(Locale.ROOT);
    }
    return names;
  }
}
