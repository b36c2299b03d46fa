package io.dyno.loadgen.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.core.Host;
import io.dyno.loadgen.drivers.JedisPoolsDriver;
import io.dyno.testsupport.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A rate limit changed while the bench runs shows in the progress output within a few seconds:
 * once through the HTTP control endpoint and once through the Archaius-watched settings file.
 * Runs against a real redis-server; waits are bounded polls on the captured progress lines.
 */
class RateLimitChangeTest {
  private static final Pattern READS = Pattern.compile("\\(r=(\\d+) w=\\d+\\).* limit r=(\\S+) ");

  @Test
  void changedReadRateShowsInProgressWithinSecondsFromHttpAndFromSettingsFile() throws Exception {
    Path dir = Files.createTempDirectory("bench-settings");
    Path settings = dir.resolve("bench.properties");
    Files.writeString(settings, "# runtime settings\n");
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    try (RedisServer redis = RedisServer.start();
        JedisPoolsDriver driver = new JedisPoolsDriver(
            List.of(Host.builder("127.0.0.1", redis.port())
                .rack("rack1")
                .datacenter("dc1")
                .build()),
            4,
            Duration.ofSeconds(2))) {
      BenchConfig cfg = BenchConfig.builder()
          .keys(1000)
          .valueSize(64)
          .readers(2)
          .writers(0)
          .readRate(200)
          .backfill(false)
          .duration(Duration.ofSeconds(40))
          .build();
      Bench bench = new Bench(cfg, driver, lines::add).progressInterval(Duration.ofMillis(500));
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread runner = new Thread(() -> {
        try {
          bench.run();
        } catch (Throwable t) {
          failure.set(t);
        }
      });
      runner.setDaemon(true);
      try (ControlServer control = new ControlServer(bench.knobs(), 0);
          SettingsFileWatcher watcher = new SettingsFileWatcher(
              settings, Duration.ofMillis(200), bench.knobs(), lines::add)) {
        runner.start();
        // Steady at the starting limit first.
        awaitLine(
            lines,
            l -> reads(l) >= 150 && reads(l) <= 300 && limit(l).equals("200"),
            Duration.ofSeconds(15));

        long t0 = System.nanoTime();
        HttpResponse<String> r = HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(control.url() + "/set?readRate=2000"))
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"readRate\":\"2000\"");
        String seen = awaitLine(
            lines, l -> limit(l).equals("2000") && reads(l) >= 1500, Duration.ofSeconds(5));
        assertThat(seen).contains("limit r=2000");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));

        HttpResponse<String> bad = HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(control.url() + "/set?keys=5"))
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(bad.body()).contains("keys cannot change while the bench runs");

        t0 = System.nanoTime();
        Files.writeString(settings, "bench.readRate=500\n");
        seen = awaitLine(
            lines,
            l -> limit(l).equals("500") && reads(l) >= 350 && reads(l) <= 650,
            Duration.ofSeconds(5));
        assertThat(seen).contains("limit r=500");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
      } finally {
        bench.stop();
        runner.join(10_000);
      }
      assertThat(failure.get()).isNull();
    }
  }

  private static long reads(String line) {
    Matcher m = READS.matcher(line);
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  private static String limit(String line) {
    Matcher m = READS.matcher(line);
    return m.find() ? m.group(2) : "";
  }

  /** Polls the captured lines until one matches, for at most {@code max}; fails listing what was seen. */
  private static String awaitLine(BlockingQueue<String> lines, Predicate<String> p, Duration max)
      throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    List<String> seen = new ArrayList<>();
    while (System.nanoTime() < deadline) {
      String l = lines.poll(100, TimeUnit.MILLISECONDS);
      if (l == null) continue;
      seen.add(l);
      if (p.test(l)) return l;
    }
    throw new AssertionError(
        "no matching progress line within " + max + "; saw:\n" + String.join("\n", seen));
  }
}
