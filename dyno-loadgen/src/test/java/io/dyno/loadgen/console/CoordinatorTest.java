package io.dyno.loadgen.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dyno.companion.Backend;
import io.dyno.core.ConsistencyLevel;
import io.dyno.loadgen.bench.Bench;
import io.dyno.loadgen.bench.BenchConfig;
import io.dyno.loadgen.bench.BenchResult;
import io.dyno.loadgen.bench.ControlServer;
import io.dyno.loadgen.bench.JsonIn;
import io.dyno.loadgen.drivers.DynoDriver;
import io.dyno.loadgen.target.EmbeddedTarget;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two load-generator instances against one cluster (the embedded companion), each with its own
 * client and console, registered with one coordinator by URL: the coordinator lists both, one
 * knob change there reaches both, one stop there ends both, and once both have ended its total equals
 * the sum of what each instance itself counted.
 */
class CoordinatorTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void twoInstancesDrivenFromOneCoordinator() throws Exception {
    try (EmbeddedTarget target = EmbeddedTarget.start(3, 1, Backend.MEMORY);
        ControlServer coordinator = ControlServer.coordinator(0);
        DynoDriver da = new DynoDriver(
            target.hosts(),
            target.tokens(),
            target.localRack(),
            ConsistencyLevel.DC_ONE,
            4,
            Duration.ofSeconds(2));
        DynoDriver db = new DynoDriver(
            target.hosts(),
            target.tokens(),
            target.localRack(),
            ConsistencyLevel.DC_ONE,
            4,
            Duration.ofSeconds(2))) {
      BenchConfig cfg = BenchConfig.builder()
          .keys(1000)
          .valueSize(128)
          .readers(2)
          .writers(1)
          .readRate(100)
          .writeRate(20)
          .backfill(false)
          .duration(Duration.ZERO)
          .build();
      Bench a = new Bench(cfg, da, line -> {});
      Bench b = new Bench(cfg, db, line -> {});
      try (ControlServer ca = new ControlServer(a, "a", 0, null).registerWith(coordinator.url());
          ControlServer cb = new ControlServer(b, "b", 0, null).registerWith(coordinator.url())) {
        CompletableFuture<BenchResult> ra = CompletableFuture.supplyAsync(() -> run(a));
        CompletableFuture<BenchResult> rb = CompletableFuture.supplyAsync(() -> run(b));
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> instances(status(coordinator)).size() == 2
                && instances(status(coordinator)).stream()
                    .allMatch(i -> "running".equals(i.get("state"))));

        HttpResponse<String> set = post(coordinator.url() + "/set?readRate=400");
        assertThat(set.statusCode()).isEqualTo(200);
        assertThat(set.body()).contains("\"a\"").contains("\"b\"");
        assertThat(a.knobs().readRate()).isEqualTo(400);
        assertThat(b.knobs().readRate()).isEqualTo(400);
        // The new rate shows in both instances' figures, as the coordinator sees them.
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> instances(status(coordinator)).stream()
                .allMatch(i -> i.get("last") instanceof Map<?, ?> l
                    && ((Number) l.get("readRateLimit")).doubleValue() == 400
                    && ((Number) l.get("reads")).doubleValue()
                            / ((Number) l.get("seconds")).doubleValue()
                        > 250));

        // One instance only.
        assertThat(post(coordinator.url() + "/set?instance=b&readPercent=50").statusCode())
            .isEqualTo(200);
        assertThat(b.knobs().readPercent()).isEqualTo(50);
        assertThat(a.knobs().readPercent()).isEqualTo(80);
        assertThat(post(coordinator.url() + "/set?instance=nobody&readRate=1").statusCode())
            .isEqualTo(400);

        HttpResponse<String> stop = post(coordinator.url() + "/stop");
        assertThat(stop.statusCode()).isEqualTo(200);
        BenchResult resA = ra.get(30, TimeUnit.SECONDS);
        BenchResult resB = rb.get(30, TimeUnit.SECONDS);
        assertThat(resA.reads()).isPositive();
        assertThat(resB.reads()).isPositive();

        // The instances end as their processes would (BenchMain closes its console after the run):
        // the coordinator keeps each one's final figures, pushed on close, not its last poll.
        ca.close();
        cb.close();
        Map<String, Object> st = status(coordinator);
        assertThat(instances(st)).extracting(i -> i.get("finished")).containsExactly(true, true);
        Map<?, ?> sum = (Map<?, ?>) st.get("sum");
        assertThat(((Number) sum.get("instances")).intValue()).isEqualTo(2);
        assertThat(((Number) sum.get("reads")).longValue()).isEqualTo(resA.reads() + resB.reads());
        assertThat(((Number) sum.get("writes")).longValue())
            .isEqualTo(resA.writes() + resB.writes());
      }
    }
  }

  private static BenchResult run(Bench b) {
    try {
      return b.run();
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static HttpResponse<String> post(String url) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static Map<String, Object> status(ControlServer c) throws Exception {
    return JsonIn.parseObject(HTTP.send(
            HttpRequest.newBuilder(URI.create(c.url() + "/status")).build(),
            HttpResponse.BodyHandlers.ofString())
        .body());
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> instances(Map<String, Object> status) {
    Object l = status.get("instances");
    return l == null ? List.of() : (List<Map<String, Object>>) l;
  }
}
