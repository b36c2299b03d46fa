package io.dyno.loadgen.drivers;

import static org.assertj.core.api.Assertions.assertThat;

import io.dyno.core.Host;
import io.dyno.loadgen.bench.Driver;
import io.dyno.testsupport.RedisServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Dynomite closes the connection on HELLO, CLIENT SETINFO, CLIENT SETNAME and any CLIENT
 * subcommand: the plain drivers must send none of them. A real redis-server counts every command
 * it receives (INFO commandstats) and every error it answered (INFO errorstats, where an unknown
 * {@code CLIENT SETINFO} lands on Redis 7.0), which shows what the clients sent on connect.
 */
class PlainDriversHandshakeTest {

  private static List<Host> hosts(RedisServer r) {
    return List.of(
        Host.builder("127.0.0.1", r.port()).rack("rack1").datacenter("dc1").build());
  }

  @Test
  void jedisPoolsSendNoHelloAndNoClientCommands() throws Exception {
    try (RedisServer redis = RedisServer.start();
        JedisPoolsDriver d = new JedisPoolsDriver(hosts(redis), 4, Duration.ofSeconds(2))) {
      assertConnectsWithoutHandshakeCommands(redis, d);
    }
  }

  @Test
  void lettuceSendsNoHelloAndNoClientCommands() throws Exception {
    try (RedisServer redis = RedisServer.start();
        LettuceDriver d = new LettuceDriver(hosts(redis), 1, Duration.ofSeconds(2))) {
      assertConnectsWithoutHandshakeCommands(redis, d);
    }
  }

  /** Runs a SET, a GET and a pipeline through {@code d}, then reads what the server received. */
  private static void assertConnectsWithoutHandshakeCommands(RedisServer redis, Driver d)
      throws Exception {
    d.set("k", "v");
    assertThat(d.get("k")).isEqualTo("v");
    d.pipeline(List.of(new Driver.Op(false, "a", "1"), new Driver.Op(true, "a", null)));
    String stats = info(redis, "commandstats");
    assertThat(stats).contains("cmdstat_set:", "cmdstat_get:");
    assertThat(stats)
        .doesNotContain("cmdstat_hello", "cmdstat_client|", "cmdstat_select", "cmdstat_auth");
    // Redis 7.0 rejects CLIENT SETINFO as an unknown subcommand without counting it in
    // commandstats.
    assertThat(info(redis, "errorstats")).doesNotContain("errorstat_");
  }

  private static String info(RedisServer redis, String section) {
    try (Jedis j = new Jedis(redis.host(), redis.port())) {
      return j.info(section);
    }
  }
}
