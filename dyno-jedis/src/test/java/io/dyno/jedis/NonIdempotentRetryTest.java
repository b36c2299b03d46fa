package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.topology.StaticHostSupplier;
import io.dyno.core.topology.StaticTokenMapSupplier;
import io.dyno.jedis.testing.CuttingProxy;
import io.dyno.jedis.testing.RedisServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.params.ZAddParams;

/**
 * Datastore mode, a real redis-server behind a proxy that lets a command through, swallows its reply
 * and closes the connection: the command ran, the client cannot tell. An idempotent command is then
 * re-run and succeeds (which proves the fault makes the client retry); a non-idempotent one — ZADD
 * with INCR, and BITFIELD ... INCRBY, a command the client used to count as idempotent because it
 * did not know it — is not re-run: it fails, and Redis holds the effect of exactly one run.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NonIdempotentRetryTest {
  private RedisServers redis;
  private CuttingProxy proxy;
  private DynoJedisClient client;
  private Jedis direct;

  @BeforeAll
  void start() throws Exception {
    redis = new RedisServers(1, 1);
    int redisPort = redis.ports().get(0);
    proxy = new CuttingProxy(redisPort);
    Host h = Host.builder("127.0.0.1", proxy.port())
        .datastorePort(proxy.port())
        .rack("rack1")
        .datacenter("dc1")
        .build();
    client = DynoJedisClient.builder()
        .config(DynoConfig.builder()
            .applicationName("no-retry")
            .datastoreMode(true)
            .minConnsPerHost(1)
            .maxConnsPerHost(1)
            .retryPolicy("ExponentialBackoff:3:1:10")
            .build())
        .hostSupplier(StaticHostSupplier.of(h))
        .tokenMapSupplier(StaticTokenMapSupplier.of(new HostToken(0, h)))
        .localRack("rack1")
        .build();
    direct = new Jedis("127.0.0.1", redisPort);
  }

  @AfterAll
  void stop() {
    client.close();
    direct.close();
    proxy.close();
    redis.close();
  }

  @BeforeEach
  void clean() {
    direct.flushAll();
  }

  @Test
  void anIdempotentCommandCutAfterItRanIsRunAgainAndSucceeds() {
    proxy.cut("retry:set", 1);
    assertThat(client.set("retry:set", "v")).isEqualTo("OK");
    assertThat(proxy.seen()).as("SET sent twice: the cut one and its retry").isEqualTo(2);
  }

  @Test
  void zaddWithIncrCutAfterItRanIsNotRunAgain() {
    proxy.cut("once:zadd", 1);
    assertThatThrownBy(() -> client.zaddIncr("once:zadd", 1, "m", ZAddParams.zAddParams()))
        .isInstanceOf(JedisConnectionException.class);
    assertThat(proxy.seen()).as("ZADD ... INCR sent once").isEqualTo(1);
    assertThat(direct.zscore("once:zadd", "m")).as("incremented exactly once").isEqualTo(1.0);
  }

  @Test
  void aCommandTheClientDoesNotListIsNotRunAgain() {
    proxy.cut("once:bitfield", 1);
    assertThatThrownBy(() -> client.bitfield("once:bitfield", "INCRBY", "u8", "0", "1"))
        .isInstanceOf(JedisConnectionException.class);
    assertThat(proxy.seen()).as("BITFIELD ... INCRBY sent once").isEqualTo(1);
    assertThat(direct.bitfield("once:bitfield", "GET", "u8", "0"))
        .as("incremented exactly once")
        .containsExactly(1L);
  }

  @Test
  void theClientServesAgainAfterTheCut() {
    proxy.cut("after:cut", 1);
    assertThatThrownBy(() -> client.incr("after:cut")).isInstanceOf(JedisConnectionException.class);
    proxy.cut("nothing-matches-this", 0);
    assertThat(client.incr("after:cut")).isEqualTo(2L);
  }
}
