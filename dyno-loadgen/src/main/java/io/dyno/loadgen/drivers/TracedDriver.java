package io.dyno.loadgen.drivers;

import io.dyno.core.ConsistencyLevel;
import io.dyno.loadgen.bench.Driver;
import io.dyno.loadgen.bench.TracingMode;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.HdrHistogram.Histogram;

/**
 * A Dyno driver whose client traces its calls ({@link BenchTracing}'s listener is installed on it):
 * passes every operation through, adds the span counts to the summary, and closes the SDK after the
 * client. With {@link TracingMode#NESTED} each operation runs inside an application span made current
 * here, so Dyno's spans are its children; otherwise Dyno's spans are roots and this class adds
 * nothing to an operation but a call.
 */
final class TracedDriver implements Driver {
  private final DynoDriver dyno;
  private final BenchTracing tracing;
  /** Null unless {@link TracingMode#NESTED}. */
  private final Tracer application;

  TracedDriver(DynoDriver dyno, BenchTracing tracing) {
    this.dyno = dyno;
    this.tracing = tracing;
    this.application = tracing.mode() == TracingMode.NESTED ? tracing.applicationTracer() : null;
  }

  BenchTracing tracing() {
    return tracing;
  }

  @Override
  public String name() {
    return dyno.name();
  }

  @Override
  public String get(String key) throws Exception {
    return application == null ? dyno.get(key) : inSpan("GET", () -> dyno.get(key));
  }

  @Override
  public void set(String key, String value) throws Exception {
    if (application == null) {
      dyno.set(key, value);
    } else {
      inSpan("SET", () -> {
        dyno.set(key, value);
        return null;
      });
    }
  }

  @Override
  public void pipeline(List<Op> ops) throws Exception {
    if (application == null) {
      dyno.pipeline(ops);
    } else {
      inSpan("PIPELINE", () -> {
        dyno.pipeline(ops);
        return null;
      });
    }
  }

  @Override
  public boolean supportsAsync() {
    return dyno.supportsAsync();
  }

  @Override
  public CompletableFuture<String> getAsync(String key) {
    return application == null ? dyno.getAsync(key) : inSpanAsync("GET", () -> dyno.getAsync(key));
  }

  @Override
  public CompletableFuture<String> setAsync(String key, String value) {
    return application == null
        ? dyno.setAsync(key, value)
        : inSpanAsync("SET", () -> dyno.setAsync(key, value));
  }

  private <T> T inSpan(String operation, Callable<T> call) throws Exception {
    Span span = application.spanBuilder("bench " + operation).startSpan();
    try (Scope ignored = span.makeCurrent()) {
      return call.call();
    } catch (Exception e) {
      span.setStatus(StatusCode.ERROR);
      throw e;
    } finally {
      span.end();
    }
  }

  /** The application span ends with the request, on whichever thread completes it. */
  private CompletableFuture<String> inSpanAsync(
      String operation, Supplier<CompletableFuture<String>> call) {
    Span span = application.spanBuilder("bench " + operation).startSpan();
    CompletableFuture<String> reply;
    try (Scope ignored = span.makeCurrent()) {
      reply = call.get();
    } catch (RuntimeException e) {
      span.setStatus(StatusCode.ERROR);
      span.end();
      throw e;
    }
    return reply.whenComplete((value, error) -> {
      if (error != null) span.setStatus(StatusCode.ERROR);
      span.end();
    });
  }

  @Override
  public boolean measuresBorrow() {
    return dyno.measuresBorrow();
  }

  @Override
  public void onBorrow(LongConsumer nanos) {
    dyno.onBorrow(nanos);
  }

  @Override
  public Histogram borrowSinceLastCall() {
    return dyno.borrowSinceLastCall();
  }

  @Override
  public ConsistencyLevel consistency() {
    return dyno.consistency();
  }

  @Override
  public void consistency(ConsistencyLevel level) {
    dyno.consistency(level);
  }

  @Override
  public Map<String, Long> requestsByNode() {
    return dyno.requestsByNode();
  }

  @Override
  public Map<String, String> summary() {
    Map<String, String> m = new LinkedHashMap<>(dyno.summary());
    m.put("tracing", tracing.describe());
    return m;
  }

  /** The client first (its last calls end their spans), then the SDK. */
  @Override
  public void close() {
    try {
      dyno.close();
    } finally {
      tracing.close();
    }
  }
}
