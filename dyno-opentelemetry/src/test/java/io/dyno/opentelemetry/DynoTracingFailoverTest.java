package io.dyno.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.core.Host;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.exec.CallOptions;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.Transport;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.Jedis;

/**
 * A call that moves to another rack is still one span under the application's span, naming the node
 * that answered: a GET whose rack1 owner is stopped (failover, on both transports), and a hedged
 * read whose rack1 owner is slow (the hedge answers first). Each on a cluster of its own.
 */
class DynoTracingFailoverTest {
  final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder()
          .addSpanProcessor(SimpleSpanProcessor.create(exporter))
          .build())
      .build();
  final Tracer app = otel.getTracer("application");

  @AfterEach
  void closeSdk() {
    otel.close();
  }

  DynoJedisClient client(CompanionCluster cluster, Transport transport) {
    return DynoJedisClient.builder()
        .applicationName("otel-failover-" + transport)
        .hostSupplier(cluster.hostSupplier())
        .tokenMapSupplier(cluster.tokenMapSupplier())
        .localRack("rack1")
        .transport(transport)
        .eventListener(DynoTracing.create(otel).listenerFactory())
        .build();
  }

  /** A key owned in rack1 whose next replica is in rack2 (the other racks take turns per token range). */
  static String keyFailingOverToRack2(DynoJedisClient client, String prefix) {
    for (int i = 0; ; i++) {
      List<Host> replicas = client.topology().replicas(prefix + i);
      if (replicas.get(0).rack().equals("rack1") && replicas.get(1).rack().equals("rack2")) {
        return prefix + i;
      }
    }
  }

  /** Writes {@code key} and waits until rack2's owner holds it (replication is asynchronous). */
  static void writeAndAwaitRack2(CompanionCluster cluster, DynoJedisClient client, String key) {
    client.set(key, "v");
    try (Jedis rack2 = new Jedis("127.0.0.1", cluster.ownerOf("rack2", key).clientPort())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> "v".equals(rack2.get(key)));
    }
  }

  @ParameterizedTest
  @EnumSource(Transport.class)
  void aGetThatFailsOverToRack2IsOneSpanNamingRack2sNodeWithFailoverSet(Transport transport) {
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(3)
            .nodesPerRack(2)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = client(cluster, transport)) {
      String key = keyFailingOverToRack2(client, "otel:failover:");
      writeAndAwaitRack2(cluster, client, key);
      CompanionNode rack1 = cluster.ownerOf("rack1", key);
      CompanionNode rack2 = cluster.ownerOf("rack2", key);
      rack1.stop();
      exporter.reset();

      Span parent = app.spanBuilder("handle request").startSpan();
      try (Scope ignored = parent.makeCurrent()) {
        assertThat(client.get(key)).isEqualTo("v");
      } finally {
        parent.end();
      }

      SpanData get = DynoTracingTest.only(dynoSpans(), "GET");
      assertThat(get.getParentSpanContext()).isEqualTo(parent.getSpanContext());
      assertThat(get.getAttributes().get(SpanListener.SERVER_PORT))
          .isEqualTo((long) rack2.clientPort());
      assertThat(DynoTracingTest.attr(get, "dyno.rack")).isEqualTo("rack2");
      assertThat(get.getAttributes().get(SpanListener.FAILOVER)).isTrue();
      assertThat(get.getAttributes().get(SpanListener.HEDGE_SENT)).isFalse();
      long attempts = get.getAttributes().get(SpanListener.ATTEMPTS);
      assertThat(attempts).isGreaterThanOrEqualTo(2);
      List<EventData> events = get.getEvents();
      assertThat(events)
          .hasSize((int) attempts)
          .allSatisfy(e -> assertThat(e.getName()).isEqualTo("dyno.attempt"));
      EventData first = events.get(0);
      assertThat(first.getAttributes().get(SpanListener.ATTEMPT_REASON)).isEqualTo("preferred");
      assertThat(first.getAttributes().get(SpanListener.ATTEMPT_OUTCOME)).isNotEqualTo("success");
      assertThat(first.getAttributes().get(SpanListener.SERVER_PORT))
          .isEqualTo((long) rack1.clientPort());
      assertThat(first.getAttributes().get(AttributeKey.stringKey("exception.type")))
          .isNotNull();
      EventData last = events.get(events.size() - 1);
      assertThat(last.getAttributes().get(SpanListener.ATTEMPT_REASON)).isEqualTo("failover");
      assertThat(last.getAttributes().get(SpanListener.ATTEMPT_OUTCOME)).isEqualTo("success");
      assertThat(last.getAttributes().get(SpanListener.RACK)).isEqualTo("rack2");
    }
  }

  @Test
  void aHedgedReadWhoseLocalOwnerIsSlowShowsTheHedgeSentAndWon() throws Exception {
    try (CompanionCluster cluster = CompanionCluster.builder()
            .racks(3)
            .nodesPerRack(2)
            .backend(Backend.MEMORY)
            .start();
        DynoJedisClient client = client(cluster, Transport.MULTIPLEXED)) {
      String key = keyFailingOverToRack2(client, "otel:hedge:");
      writeAndAwaitRack2(cluster, client, key);
      CompanionNode rack1 = cluster.ownerOf("rack1", key);
      CompanionNode rack2 = cluster.ownerOf("rack2", key);
      rack1.delayReplies(Duration.ofMillis(800));
      exporter.reset();

      Span parent = app.spanBuilder("handle request").startSpan();
      String value;
      try (Scope ignored = parent.makeCurrent()) {
        value = client
            .async()
            .withOptions(
                CallOptions.defaults().withHedging(HedgePolicy.after(Duration.ofMillis(20))))
            .get(key)
            .get(10, TimeUnit.SECONDS);
      } finally {
        parent.end();
      }
      rack1.delayReplies(Duration.ZERO);

      assertThat(value).isEqualTo("v");
      SpanData get = DynoTracingTest.only(dynoSpans(), "GET");
      assertThat(get.getParentSpanContext()).isEqualTo(parent.getSpanContext());
      assertThat(get.getAttributes().get(SpanListener.HEDGE_SENT)).isTrue();
      assertThat(get.getAttributes().get(SpanListener.HEDGE_WON)).isTrue();
      assertThat(get.getAttributes().get(SpanListener.FAILOVER)).isFalse();
      assertThat(get.getAttributes().get(SpanListener.SERVER_PORT))
          .isEqualTo((long) rack2.clientPort());
      assertThat(DynoTracingTest.attr(get, "dyno.rack")).isEqualTo("rack2");
      assertThat(get.getAttributes().get(SpanListener.ATTEMPTS)).isEqualTo(2L);
      // The hedge's event at its answer; the slow attempt was still in flight when the call ended.
      assertThat(get.getEvents())
          .extracting(e -> e.getAttributes().get(SpanListener.ATTEMPT_REASON) + "/"
              + e.getAttributes().get(SpanListener.ATTEMPT_OUTCOME))
          .containsExactly("hedge/success", "preferred/in_flight");
    }
  }

  List<SpanData> dynoSpans() {
    return exporter.getFinishedSpanItems().stream()
        .filter(
            s -> s.getInstrumentationScopeInfo().getName().equals(DynoTracing.INSTRUMENTATION_NAME))
        .toList();
  }
}
