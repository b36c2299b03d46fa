package io.dyno.loadgen.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.dyno.testsupport.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

/**
 * Server CPU per operation, read from {@code /proc/<pid>/stat} of a real redis-server: it grows
 * while the server works, the per-op figure is positive and within what the machine's cores allow,
 * and a server that is gone gives "n/a" naming it instead of a number.
 */
class ServerCpuTest {

  @Test
  void aBusyRedisServersCpuGrowsAndItsCostPerOperationIsPositiveAndWithinTheMachinesCores()
      throws Exception {
    assumeThat(Files.isReadable(Path.of("/proc/self/stat"))).as("Linux /proc").isTrue();
    try (RedisServer redis = RedisServer.start();
        Jedis j = new Jedis("127.0.0.1", redis.port())) {
      ServerCpu cpu = new ServerCpu(
          () -> List.of(new ServerCpu.Proc("redis", "redis-server " + redis.port(), redis.pid())));
      double tick = 1 / ServerCpu.ticksPerSecond();
      ServerCpu.Reading before = cpu.read();
      assertThat(before.unavailable()).isNull();
      long t0 = System.nanoTime();
      String value = "v".repeat(1024);
      long ops = 0;
      ServerCpu.Reading after = before;
      // Load until the server has used at least 20 ticks (so the tick's rounding is small),
      // bounded.
      long deadline = t0 + 60_000_000_000L;
      while (used(before, after) < 20 * tick && System.nanoTime() < deadline) {
        Pipeline p = j.pipelined();
        for (int i = 0; i < 2000; i++) p.set("k" + (ops + i) % 5000, value);
        p.sync();
        ops += 2000;
        after = cpu.read();
      }
      double wall = (System.nanoTime() - t0) / 1e9;

      assertThat(used(before, after))
          .as("CPU seconds of the busy redis-server")
          .isGreaterThanOrEqualTo(20 * tick);
      ServerCpu.Use use = ServerCpu.between(before, after, ops);
      assertThat(use.available()).as(use.toString()).isTrue();
      assertThat(use.dynomiteSeconds()).isZero();
      assertThat(use.redisSeconds())
          .isPositive()
          .isLessThanOrEqualTo(wall * Runtime.getRuntime().availableProcessors() + tick);
      assertThat(use.microsPerOp())
          .isEqualTo(use.redisMicrosPerOp())
          .isPositive()
          .isLessThanOrEqualTo(
              (wall * Runtime.getRuntime().availableProcessors() + tick) * 1e6 / ops);
      assertThat(use.toString())
          .startsWith(
              String.format(Locale.ROOT, "%.1f us/op (dynomite 0.0 + redis ", use.microsPerOp()))
          .contains("of 1 processes over " + ops + " ops");
    }
  }

  @Test
  void aServerThatIsGoneMakesTheFigureNaNamingTheProcess() throws Exception {
    RedisServer redis = RedisServer.start();
    long pid = redis.pid();
    ServerCpu cpu = new ServerCpu(
        () -> List.of(new ServerCpu.Proc("redis", "redis-server " + redis.port(), pid)));
    ServerCpu.Reading before = cpu.read();
    redis.close();

    ServerCpu.Reading after = cpu.read();
    assertThat(after.unavailable()).contains("/proc/" + pid + "/stat");
    assertThat(ServerCpu.between(before, after, 100).toString())
        .startsWith("n/a (at the end: cannot read /proc/" + pid + "/stat");

    ServerCpu notRunning =
        new ServerCpu(() -> List.of(new ServerCpu.Proc("dynomite", "dynomite 127.0.0.1:8102", -1)));
    assertThat(notRunning.read().unavailable())
        .isEqualTo("dynomite of dynomite 127.0.0.1:8102 is not running");
  }

  @Test
  void utimeAndStimeAreFoundAfterAProcessNameHoldingSpacesAndParentheses() {
    String stat =
        "4242 (redis (x) y) S 1 4242 4242 0 -1 4194560 300 0 0 0 170 35 0 0 20 0 5 0 123 1000 200\n";
    assertThat(ServerCpu.parseTicks(stat, 4242)).isEqualTo(205);
  }

  private static double used(ServerCpu.Reading before, ServerCpu.Reading after) {
    return after.seconds().values().stream().mapToDouble(Double::doubleValue).sum()
        - before.seconds().values().stream().mapToDouble(Double::doubleValue).sum();
  }
}
