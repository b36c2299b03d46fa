package io.dyno.opentelemetry;

import io.dyno.core.events.CallListener;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.Context;
import java.util.Objects;

/**
 * OpenTelemetry tracing for Dyno: one {@code CLIENT} span per call through the engine, each attempt
 * an event on it. Install it on the client:
 * <pre>{@code
 * DynoJedisClient client = DynoJedisClient.builder()
 *     ...
 *     .eventListener(DynoTracing.create(openTelemetry).listenerFactory())
 *     .build();
 * }</pre>
 *
 * <p>The span's parent is {@link Context#current()} on the thread that starts the call, read when
 * the call starts, so an asynchronous call completed on an I/O thread, a retry on the engine's
 * executor, or a part of a pipeline or multi-key command stays under the application's span.
 *
 * <p>Attributes, following the OpenTelemetry database conventions for Redis (Dynomite speaks RESP
 * in front of Redis, and {@code redis} is the value tracing back ends know):
 * <ul>
 *   <li>{@code db.system.name} = {@code redis}, {@code db.operation.name} = the command
 *       ({@code GET}; {@code PIPELINE} for one node's part of a pipeline), the span's name too;</li>
 *   <li>{@code server.address}, {@code server.port}: the node that answered (for a failed call, the
 *       node of its last attempt), as the topology names it (its Dynomite client port);</li>
 *   <li>{@code dyno.rack}, {@code dyno.datacenter} of that node; {@code dyno.attempts};
 *       {@code dyno.failover} (an attempt moved to another replica after a failure);
 *       {@code dyno.hedge.sent}, {@code dyno.hedge.won} (a hedged read, and whether the hedge
 *       answered first); {@code dyno.consistency} when the call asks Dynomite for a level;
 *       {@code dyno.pipeline} for a pipeline's part;</li>
 *   <li>a failed call: status {@code ERROR}, the exception recorded, {@code error.type} its class.</li>
 * </ul>
 * Each attempt is an event {@code dyno.attempt} at its end: {@code dyno.attempt.number},
 * {@code .reason} ({@code preferred}, {@code failover}, {@code hedge} …), {@code .outcome}
 * ({@code success}, {@code connection_error} …), the node's address, port and rack, and the
 * failure's {@code exception.type} and {@code exception.message}. Keys and values are never recorded.
 *
 * <p>With a no-op tracer provider ({@link OpenTelemetry#noop()}) the factory hears no call, so
 * calls cost what they cost without it; a call the sampler drops costs one non-recording span.
 */
public final class DynoTracing {
  /** The instrumentation scope name of the tracer, as samplers and views see it. */
  public static final String INSTRUMENTATION_NAME = "io.dyno.opentelemetry";

  private final Tracer tracer; // null: a no-op provider, nothing to trace
  private final CallListener.Factory factory;

  private DynoTracing(Tracer tracer) {
    this.tracer = tracer;
    this.factory = tracer == null
        ? () -> CallListener.NONE
        : () -> new SpanListener(this.tracer, Context.current());
  }

  /**
   * Tracing into {@code openTelemetry}'s tracer provider (the SDK's, the Java agent's, Spring Boot's).
   *
   * @param openTelemetry the application's OpenTelemetry
   * @return the tracing; {@link #listenerFactory()} is what the client takes
   */
  public static DynoTracing create(OpenTelemetry openTelemetry) {
    Objects.requireNonNull(openTelemetry, "openTelemetry");
    TracerProvider provider = openTelemetry.getTracerProvider();
    if (provider == null || provider == TracerProvider.noop()) {
      return new DynoTracing(null);
    }
    return new DynoTracing(provider.get(INSTRUMENTATION_NAME));
  }

  /**
   * The listener factory to pass to {@code DynoJedisClient.builder().eventListener(...)} (or
   * {@code DynoEngine.builder(...).listener(...)}): a new span listener per call, whose parent is
   * the calling thread's current context.
   *
   * @return the factory of each call's span listener (hears no call over a no-op tracer provider)
   */
  public CallListener.Factory listenerFactory() {
    return factory;
  }

  @Override
  public String toString() {
    return "DynoTracing{" + (tracer == null ? "off: no-op tracer provider" : INSTRUMENTATION_NAME)
        + "}";
  }
}
