package io.dyno.loadgen.drivers;

import io.dyno.core.events.CallListener;
import io.dyno.loadgen.bench.TracingMode;
import io.dyno.opentelemetry.DynoTracing;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * One traced client's OpenTelemetry: the SDK's tracer provider with an always-on (or, for
 * {@link TracingMode#DROPPED}, always-off) sampler, and a span processor that counts the spans that
 * end sampled and drops them, and Dyno's listener over it.
 *
 * <p>Why a counting processor, not {@code SimpleSpanProcessor} over an exporter: the simple processor
 * converts every span to {@code SpanData} and calls its exporter under one lock shared by all
 * threads, a cost (and a contention point at 8+ threads) that production setups do not pay on the
 * calling thread; they batch, and a batching processor's caller-side work is a sampled check and a
 * queue offer. Counting in {@code onEnd} keeps the measurement to what the caller pays: the span,
 * its attributes and attempt events, the context reads; no export, no I/O.
 */
final class BenchTracing implements AutoCloseable {
  /** The bench's own instrumentation scope: the application spans of {@link TracingMode#NESTED}. */
  static final String APPLICATION_SCOPE = "io.dyno.loadgen";

  private final TracingMode mode;
  private final CountingProcessor counts = new CountingProcessor();
  private final OpenTelemetrySdk sdk;
  private final CallListener.Factory listener;
  private final AtomicBoolean closed = new AtomicBoolean();

  BenchTracing(TracingMode mode) {
    if (mode == TracingMode.OFF) {
      throw new IllegalArgumentException("setting tracing: off needs no tracing; do not build one");
    }
    this.mode = mode;
    SdkTracerProvider provider = SdkTracerProvider.builder()
        .setSampler(mode == TracingMode.DROPPED ? Sampler.alwaysOff() : Sampler.alwaysOn())
        .addSpanProcessor(counts)
        .build();
    this.sdk = OpenTelemetrySdk.builder().setTracerProvider(provider).build();
    this.listener = DynoTracing.create(sdk).listenerFactory();
  }

  TracingMode mode() {
    return mode;
  }

  /** What the client is given: Dyno's span listener over this SDK. */
  CallListener.Factory listenerFactory() {
    return listener;
  }

  /** The tracer of the bench's application spans ({@link TracingMode#NESTED}). */
  Tracer applicationTracer() {
    return sdk.getTracer(APPLICATION_SCOPE);
  }

  /** Dyno's spans that ended sampled (counted, then dropped). */
  long dynoSpans() {
    return counts.dyno.sum();
  }

  /** Of {@link #dynoSpans()}, those whose parent is a span (an application span), not roots. */
  long dynoSpansWithParent() {
    return counts.dynoWithParent.sum();
  }

  /** The bench's application spans that ended sampled. */
  long applicationSpans() {
    return counts.application.sum();
  }

  /** For the run's summary and report. */
  String describe() {
    String app = mode == TracingMode.NESTED
        ? " (" + dynoSpansWithParent() + " of them children of the " + applicationSpans()
            + " application spans)"
        : "";
    return mode.label() + ": " + dynoSpans() + " Dyno spans ended sampled" + app + " ("
        + (mode == TracingMode.DROPPED ? "always-off" : "always-on")
        + " sampler; spans counted and dropped in the "
        + "process, no export)";
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      sdk.close();
    }
  }

  /** Counts sampled spans as they end, by instrumentation scope; keeps nothing. */
  private static final class CountingProcessor implements SpanProcessor {
    final LongAdder dyno = new LongAdder();
    final LongAdder dynoWithParent = new LongAdder();
    final LongAdder application = new LongAdder();

    @Override
    public void onStart(Context parentContext, ReadWriteSpan span) {}

    @Override
    public boolean isStartRequired() {
      return false;
    }

    @Override
    public void onEnd(ReadableSpan span) {
      if (!span.getSpanContext().isSampled()) return;
      if (DynoTracing.INSTRUMENTATION_NAME.equals(
          span.getInstrumentationScopeInfo().getName())) {
        dyno.increment();
        if (span.getParentSpanContext().isValid()) dynoWithParent.increment();
      } else {
        application.increment();
      }
    }

    @Override
    public boolean isEndRequired() {
      return true;
    }
  }
}
