package io.dyno.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.events.CallListener;
import io.dyno.core.exec.CallOptions;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.DynoPipeline;
import io.dyno.jedis.Transport;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Every call through a client with {@link DynoTracing} is one CLIENT span under the application's
 * span, whatever thread ends it, against a companion cluster of 3 racks x 2 nodes: blocking and
 * asynchronous reads, a pipeline's parts, a data error. Failover and hedging: {@link DynoTracingFailoverTest}.
 */
class DynoTracingTest {
  static final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  static final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder()
          .addSpanProcessor(SimpleSpanProcessor.create(exporter))
          .build())
      .build();
  static final Tracer app = otel.getTracer("application");
  static CompanionCluster cluster;

  @BeforeAll
  static void start() {
    cluster = CompanionCluster.builder()
        .racks(3)
        .nodesPerRack(2)
        .backend(Backend.MEMORY)
        .start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
    otel.close();
  }

  @BeforeEach
  void clear() {
    exporter.reset();
  }

  static DynoJedisClient client(CompanionCluster cluster, Transport transport) {
    return DynoJedisClient.builder()
        .applicationName("otel-" + transport)
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .transport(transport)
        .eventListener(DynoTracing.create(otel).listenerFactory())
        .build();
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void aBlockingGetIsAClientSpanUnderTheApplicationSpanNamingTheNodeThatAnswered(
      Transport transport) {
    try (DynoJedisClient client = client(cluster, transport)) {
      client.set("otel:get", "v");
      exporter.reset();
      Span parent = app.spanBuilder("handle request").startSpan();
      try (Scope ignored = parent.makeCurrent()) {
        assertThat(client.get("otel:get")).isEqualTo("v");
      } finally {
        parent.end();
      }

      SpanData get = only(dynoSpans(), "GET");
      assertThat(get.getParentSpanContext()).isEqualTo(parent.getSpanContext());
      assertThat(get.getKind()).isEqualTo(SpanKind.CLIENT);
      CompanionNode owner = cluster.ownerOf("rack1", "otel:get");
      assertThat(attr(get, "db.system.name")).isEqualTo("redis");
      assertThat(attr(get, "db.operation.name")).isEqualTo("GET");
      assertThat(attr(get, "server.address")).isEqualTo("127.0.0.1");
      assertThat(get.getAttributes().get(SpanListener.SERVER_PORT))
          .isEqualTo((long) owner.clientPort());
      assertThat(attr(get, "dyno.rack")).isEqualTo("rack1");
      assertThat(attr(get, "dyno.datacenter")).isEqualTo(cluster.datacenter());
      assertThat(get.getAttributes().get(SpanListener.ATTEMPTS)).isEqualTo(1L);
      assertThat(get.getAttributes().get(SpanListener.FAILOVER)).isFalse();
      assertThat(get.getAttributes().get(SpanListener.HEDGE_SENT)).isFalse();
      assertThat(get.getAttributes().get(SpanListener.HEDGE_WON)).isFalse();
      assertThat(get.getAttributes().get(SpanListener.CONSISTENCY)).isNull();
      assertThat(get.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
      assertThat(get.getEvents()).singleElement().satisfies(e -> {
        assertThat(e.getName()).isEqualTo("dyno.attempt");
        assertThat(e.getAttributes().get(SpanListener.ATTEMPT_REASON)).isEqualTo("preferred");
        assertThat(e.getAttributes().get(SpanListener.ATTEMPT_OUTCOME)).isEqualTo("success");
        assertThat(e.getAttributes().get(SpanListener.SERVER_PORT))
            .isEqualTo((long) owner.clientPort());
      });
    }
  }

  @Test
  void asynchronousGetsEndedOnTheIoThreadKeepTheApplicationSpanAsTheirParent() throws Exception {
    Set<Thread> callEnders = ConcurrentHashMap.newKeySet();
    CallListener endThread = new CallListener() {
      @Override
      public void callEnd(Throwable failure, int attempts, long elapsedNanos) {
        callEnders.add(Thread.currentThread());
      }
    };
    try (DynoJedisClient client = DynoJedisClient.builder()
        .applicationName("otel-async")
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .transport(Transport.MULTIPLEXED)
        .eventListener(DynoTracing.create(otel).listenerFactory())
        .eventListener(() -> endThread)
        .build()) {
      for (int i = 0; i < 20; i++) {
        client.set("otel:async:" + i, "a" + i);
      }
      exporter.reset();
      callEnders.clear();
      Span parent = app.spanBuilder("fan out").startSpan();
      List<CompletableFuture<String>> gets = new ArrayList<>();
      try (Scope ignored = parent.makeCurrent()) {
        for (int i = 0; i < 20; i++) {
          gets.add(client.async().get("otel:async:" + i));
        }
      } finally {
        parent.end();
      }
      for (int i = 0; i < 20; i++) {
        assertThat(gets.get(i).get(10, TimeUnit.SECONDS)).isEqualTo("a" + i);
      }

      assertThat(callEnders)
          .as("calls ended on the transport's I/O threads")
          .anyMatch(t -> t != Thread.currentThread());
      List<SpanData> spans = dynoSpans();
      assertThat(spans).hasSize(20).allSatisfy(s -> {
        assertThat(s.getName()).isEqualTo("GET");
        assertThat(s.getParentSpanContext()).isEqualTo(parent.getSpanContext());
        assertThat(attr(s, "dyno.rack")).isEqualTo("rack1");
      });
      Set<Long> ports = new HashSet<>();
      spans.forEach(s -> ports.add(s.getAttributes().get(SpanListener.SERVER_PORT)));
      Set<Long> owners = new HashSet<>();
      for (int i = 0; i < 20; i++) {
        owners.add((long) cluster.ownerOf("rack1", "otel:async:" + i).clientPort());
      }
      assertThat(ports).isEqualTo(owners);
    }
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void eachPartOfAPipelineIsASpanUnderTheApplicationSpan(Transport transport) {
    try (DynoJedisClient client = client(cluster, transport)) {
      Set<Long> owners = new HashSet<>();
      for (int i = 0; i < 12; i++) {
        owners.add((long) cluster.ownerOf("rack1", "otel:p:" + i).clientPort());
      }
      assertThat(owners).as("the keys are spread over rack1's two nodes").hasSize(2);
      exporter.reset();
      Span parent = app.spanBuilder("batch").startSpan();
      List<Object> replies;
      try (Scope ignored = parent.makeCurrent();
          DynoPipeline p = client.pipelined()) {
        for (int i = 0; i < 12; i++) {
          p.set("otel:p:" + i, "v" + i);
        }
        replies = p.syncAndReturnAll();
      } finally {
        parent.end();
      }

      assertThat(replies).hasSize(12);
      List<SpanData> parts = dynoSpans();
      assertThat(parts).hasSize(2).allSatisfy(s -> {
        assertThat(s.getName()).isEqualTo("PIPELINE");
        assertThat(s.getParentSpanContext()).isEqualTo(parent.getSpanContext());
        assertThat(s.getAttributes().get(SpanListener.PIPELINE)).isTrue();
        assertThat(attr(s, "dyno.rack")).isEqualTo("rack1");
      });
      Set<Long> ports = new HashSet<>();
      parts.forEach(s -> ports.add(s.getAttributes().get(SpanListener.SERVER_PORT)));
      assertThat(ports).isEqualTo(owners);
    }
  }

  @Test
  void aDataErrorIsAnErrorSpanWithTheExceptionRecorded() {
    try (DynoJedisClient client = client(cluster, Transport.POOLED)) {
      client.set("otel:text", "not a number");
      exporter.reset();
      Span parent = app.spanBuilder("handle request").startSpan();
      try (Scope ignored = parent.makeCurrent()) {
        assertThatThrownBy(() -> client.incr("otel:text")).isInstanceOf(JedisDataException.class);
      } finally {
        parent.end();
      }

      SpanData incr = only(dynoSpans(), "INCR");
      assertThat(incr.getParentSpanContext()).isEqualTo(parent.getSpanContext());
      assertThat(incr.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
      assertThat(attr(incr, "error.type")).isEqualTo(JedisDataException.class.getName());
      assertThat(incr.getEvents())
          .extracting(EventData::getName)
          .containsExactly("dyno.attempt", "exception");
      EventData attempt = incr.getEvents().get(0);
      assertThat(attempt.getAttributes().get(SpanListener.ATTEMPT_OUTCOME)).isEqualTo("data_error");
      assertThat(attempt.getAttributes().get(SpanListener.EXCEPTION_TYPE))
          .isEqualTo(JedisDataException.class.getName());
      assertThat(incr.getEvents()
              .get(1)
              .getAttributes()
              .get(AttributeKey.stringKey("exception.message")))
          .contains("not an integer");
    }
  }

  @Test
  void theConsistencyACallAsksForIsOnItsSpan() {
    try (DynoJedisClient client = client(cluster, Transport.POOLED)) {
      client
          .withOptions(CallOptions.defaults().withConsistency(ConsistencyLevel.DC_QUORUM))
          .set("otel:q", "q");
      assertThat(only(dynoSpans(), "SET").getAttributes().get(SpanListener.CONSISTENCY))
          .isEqualTo("DC_QUORUM");
    }
  }

  @Test
  void aNoopOpenTelemetryHearsNoCall() {
    CallListener.Factory f = DynoTracing.create(OpenTelemetry.noop()).listenerFactory();
    assertThat(f.create()).isSameAs(CallListener.NONE);
    assertThat(DynoTracing.create(otel).listenerFactory().create()).isNotSameAs(CallListener.NONE);
  }

  /** The spans Dyno made (the application's own are left out). */
  static List<SpanData> dynoSpans() {
    return exporter.getFinishedSpanItems().stream()
        .filter(
            s -> s.getInstrumentationScopeInfo().getName().equals(DynoTracing.INSTRUMENTATION_NAME))
        .toList();
  }

  static SpanData only(List<SpanData> spans, String name) {
    assertThat(spans)
        .as("Dyno's spans")
        .singleElement()
        .satisfies(s -> assertThat(s.getName()).isEqualTo(name));
    return spans.get(0);
  }

  static String attr(SpanData s, String key) {
    return s.getAttributes().get(AttributeKey.stringKey(key));
  }
}
