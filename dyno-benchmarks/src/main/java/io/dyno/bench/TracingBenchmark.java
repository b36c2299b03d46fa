package io.dyno.bench;

import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.engine.internal.DynoEngine;
import io.dyno.core.engine.internal.NodeConnectionFactory;
import io.dyno.core.routing.Topology;
import io.dyno.opentelemetry.DynoTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What dyno-opentelemetry adds to a call: {@link EngineBenchmark}'s whole request path without I/O
 * (route, borrow, an operation that answers at once, release, record), on one thread, with
 * <ul>
 *   <li>{@code noListener}: no call listener (today's engine call);</li>
 *   <li>{@code otelNoop}: {@link DynoTracing} over {@link OpenTelemetry#noop()} (the factory hears no call);</li>
 *   <li>{@code otelSampled}: over the SDK, every span sampled and ended into a simple processor with
 *       an exporter that drops it (the span, its attributes and its attempt event are all built);</li>
 *   <li>{@code otelSampledOut}: over the SDK with a sampler that drops every span (one non-recording span);</li>
 *   <li>{@code sdkBareSpan}: no engine call, only what the SDK itself charges for one sampled span
 *       without attributes or events (started under the application span, ended, exported to nothing).</li>
 * </ul>
 * Each call runs under an application span, as in a traced service.
 *
 * <p>Run: {@code java -jar dyno-benchmarks/target/benchmarks.jar 'TracingBenchmark|EngineBenchmark.execute_1t' -f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TracingBenchmark {
  private OpenTelemetrySdk sampled;
  private OpenTelemetrySdk sampledOut;
  private DynoEngine<EngineBenchmark.Conn> plain;
  private DynoEngine<EngineBenchmark.Conn> noop;
  private DynoEngine<EngineBenchmark.Conn> traced;
  private DynoEngine<EngineBenchmark.Conn> dropped;
  private Span applicationSpan;
  private Tracer bare;
  private String[] keys;

  @Setup(Level.Trial)
  public void setUp() {
    sampled = sdk(Sampler.alwaysOn());
    sampledOut = sdk(Sampler.alwaysOff());
    Topology topology = RoutingBenchmark.ring("");
    plain = engine(topology, null);
    noop = engine(topology, DynoTracing.create(OpenTelemetry.noop()));
    traced = engine(topology, DynoTracing.create(sampled));
    dropped = engine(topology, DynoTracing.create(sampledOut));
    applicationSpan = sampled.getTracer("application").spanBuilder("request").startSpan();
    bare = sampled.getTracer("bare");
    keys = new String[1024];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = String.format("user:%011d", i * 7919L);
    }
  }

  private static OpenTelemetrySdk sdk(Sampler sampler) {
    // SpanExporter.composite() of nothing: the SDK's no-op exporter.
    return OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder()
            .setSampler(sampler)
            .addSpanProcessor(SimpleSpanProcessor.create(SpanExporter.composite()))
            .build())
        .build();
  }

  private static DynoEngine<EngineBenchmark.Conn> engine(Topology topology, DynoTracing tracing) {
    NodeConnectionFactory<EngineBenchmark.Conn> factory = new NodeConnectionFactory<>() {
      @Override
      public EngineBenchmark.Conn open(Host host, Duration connectTimeout, Duration socketTimeout) {
        return new EngineBenchmark.Conn(host);
      }

      @Override
      public FailureKind classify(Throwable failure) {
        return FailureKind.CONNECTION;
      }
    };
    DynoEngine.Builder<EngineBenchmark.Conn> b = DynoEngine.builder(factory)
        .config(DynoConfig.builder()
            .applicationName("jmh-tracing")
            .maxConnsPerHost(16)
            .minConnsPerHost(8)
            .build())
        .topology(() -> topology)
        .registerMBean(false);
    if (tracing != null) {
      b.listener(tracing.listenerFactory());
    }
    return b.build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    applicationSpan.end();
    plain.close();
    noop.close();
    traced.close();
    dropped.close();
    sampled.close();
    sampledOut.close();
  }

  private Object call(DynoEngine<EngineBenchmark.Conn> engine) {
    String key = keys[ThreadLocalRandom.current().nextInt(keys.length)];
    try (var ignored = applicationSpan.makeCurrent()) {
      return engine.execute(engine.call("GET").key(key).idempotent(true).build(), c -> c);
    }
  }

  @Benchmark
  public Object noListener() {
    return call(plain);
  }

  @Benchmark
  public Object otelNoop() {
    return call(noop);
  }

  @Benchmark
  public Object otelSampled() {
    return call(traced);
  }

  @Benchmark
  public Object otelSampledOut() {
    return call(dropped);
  }

  @Benchmark
  public Object sdkBareSpan() {
    try (var ignored = applicationSpan.makeCurrent()) {
      Span span = bare.spanBuilder("GET").startSpan();
      span.end();
      return span;
    }
  }
}
