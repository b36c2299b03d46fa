package io.dyno.companion.containers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.SocketTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/** The helper's process faults, on a real redis-server in its own container. */
class RedisContainerProcessTest {
  private static ContainerProcess redis;
  private static RuntimeException startFailure;

  @BeforeEach
  void redisRunning() {
    ContainerAssumptions.assumeRedisImageAvailable();
    if (startFailure != null) throw startFailure;
    if (redis == null) {
      try {
        redis = ContainerProcess.startRedis();
      } catch (RuntimeException e) {
        startFailure = e;
        throw e;
      }
    }
  }

  @AfterEach
  void heal() {
    if (redis == null) return;
    if (redis.isPaused()) redis.unpause();
    if (!redis.isRunning()) redis.restart();
  }

  @AfterAll
  static void removeContainer() {
    if (redis != null) {
      redis.close();
      redis.close(); // idempotent
    }
  }

  @Test
  void servesOnItsLoopbackPortWithHostNetworking() {
    try (Jedis j = jedis(2_000)) {
      assertThat(j.set("k", "v")).isEqualTo("OK");
      assertThat(j.get("k")).isEqualTo("v");
    }
    assertThat(redis.isRunning()).isTrue();
    assertThat(redis.logs()).contains("Ready to accept connections");
    assertThat(redis.image()).isEqualTo(ContainerImages.redis());
  }

  @Test
  void aPausedProcessTimesOutA500msClientAndAnswersOnceUnpaused() {
    try (Jedis j = jedis(500)) {
      j.set("paused", "before");
      redis.pause();
      assertThat(redis.isPaused()).isTrue();
      long start = System.nanoTime();
      assertThatThrownBy(() -> j.get("paused"))
          .isInstanceOf(JedisConnectionException.class)
          .hasRootCauseInstanceOf(SocketTimeoutException.class);
      assertThat((System.nanoTime() - start) / 1_000_000).isBetween(450L, 3_000L);
    }
    redis.unpause();
    assertThat(redis.isPaused()).isFalse();
    try (Jedis j = jedis(500)) {
      assertThat(j.get("paused")).isEqualTo("before");
    }
  }

  @Test
  void aKilledProcessRefusesConnectionsAndARestartServesOnTheSamePortWithNoData() {
    int port = redis.port();
    try (Jedis j = jedis(2_000)) {
      j.set("lost", "on-kill");
    }
    redis.kill();
    assertThat(redis.isRunning()).isFalse();
    assertThat(RespPing.pong(port, Duration.ofMillis(300))).isFalse();
    assertThatThrownBy(() -> {
          try (Jedis j = jedis(500)) {
            j.ping();
          }
        })
        .isInstanceOf(JedisConnectionException.class);

    redis.restart();
    assertThat(redis.isRunning()).isTrue();
    assertThat(redis.port()).isEqualTo(port);
    try (Jedis j = jedis(2_000)) {
      assertThat(j.get("lost")).isNull(); // no persistence: a killed redis starts empty
    }
  }

  private static Jedis jedis(int socketTimeoutMs) {
    return new Jedis(
        new HostAndPort("127.0.0.1", redis.port()),
        DefaultJedisClientConfig.builder()
            .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
            .connectionTimeoutMillis(1_000)
            .socketTimeoutMillis(socketTimeoutMs)
            .build());
  }
}
