package io.dyno.companion;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Clients nobody here wrote: redis-cli (non-interactive) and redis-benchmark, against both backends. */
class ExternalClientsTest {
  private static CompanionCluster memory;
  private static CompanionCluster redis;

  @BeforeAll
  static void start() {
    memory = CompanionCluster.builder()
        .racks(1)
        .nodesPerRack(2)
        .backend(Backend.MEMORY)
        .start();
    redis = CompanionCluster.builder()
        .racks(1)
        .nodesPerRack(2)
        .backend(Backend.REDIS)
        .start();
  }

  @AfterAll
  static void stop() {
    memory.close();
    redis.close();
  }

  private static CompanionNode node(Backend b) {
    return (b == Backend.MEMORY ? memory : redis).node("rack1", 0);
  }

  static String run(long timeoutSeconds, String... command)
      throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
        throw new AssertionError(
            String.join(" ", command) + " did not finish within " + timeoutSeconds + " s");
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.exitValue())
          .as("exit code of %s, output %s", String.join(" ", command), out)
          .isZero();
      return out;
    } finally {
      p.destroyForcibly();
    }
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void redisCliRoundTrips(Backend backend) throws Exception {
    String port = String.valueOf(node(backend).clientPort());
    // "bar" is owned by the other node: the round trip includes a forward
    assertThat(run(20, "redis-cli", "-p", port, "SET", "bar", "hello world").trim())
        .isEqualTo("OK");
    assertThat(run(20, "redis-cli", "-p", port, "GET", "bar").trim()).isEqualTo("hello world");
    assertThat(run(20, "redis-cli", "-p", port, "HSET", "h", "f", "1").trim()).isEqualTo("1");
    assertThat(run(20, "redis-cli", "-p", port, "HGETALL", "h").trim()).isEqualTo("f\n1");
    assertThat(run(20, "redis-cli", "-p", port, "PING").trim()).isEqualTo("PONG");
    assertThat(node(backend).stats().forwarded()).isPositive();
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void redisBenchmarkCompletes(Backend backend) throws Exception {
    String out = run(
        120,
        "redis-benchmark",
        "-p",
        String.valueOf(node(backend).clientPort()),
        "-t",
        "get,set",
        "-d",
        "1024",
        "-n",
        "20000",
        "-c",
        "20",
        "-q");
    List<String> results = new ArrayList<>();
    for (String line : out.split("[\r\n]")) {
      if (line.contains("requests per second")) {
        results.add(line.trim());
      }
    }
    assertThat(results).as(out).hasSize(2);
    assertThat(results.get(0)).startsWith("SET: ");
    assertThat(results.get(1)).startsWith("GET: ");
  }
}
