package io.dyno.jedis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.exec.CallOptions;
import io.dyno.jedis.DynoDeadlineExceededException;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.DynoNodeFailureException;
import io.dyno.testsupport.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * {@link JedisNodeConnection#setReadTimeout}: the engine's per-run cap on real sockets, against real
 * redis-server processes frozen with SIGSTOP (sockets open, nothing answers).
 */
class JedisReadTimeoutTest {
  static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(5);
  static final Duration DEADLINE = Duration.ofMillis(800);
  static final Duration MARGIN = Duration.ofMillis(300);

  static Host host(RedisServer redis, String rack) {
    return Host.builder(redis.host(), redis.port())
        .datastorePort(redis.port())
        .rack(rack)
        .datacenter("dc1")
        .build();
  }

  final List<AutoCloseable> toClose = new ArrayList<>();

  <T extends AutoCloseable> T closeLater(T c) {
    toClose.add(0, c);
    return c;
  }

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  @Test
  void aCappedReadTimeoutEndsAReadOnAFrozenServerInTimeAndIsReportedAsATimeout() throws Exception {
    RedisServer redis = closeLater(RedisServer.start());
    SocketNodeConnection conn = (SocketNodeConnection)
        closeLater(new JedisConnectionFactory(JedisConnectionFactory.Datastore.off())
            .open(host(redis, "rack1"), Duration.ofSeconds(1), SOCKET_TIMEOUT));
    assertThat(conn.jedisConnection().getSoTimeout()).isEqualTo(5000);
    conn.setReadTimeout(Duration.ofMillis(200));
    assertThat(conn.jedisConnection().getSoTimeout()).isEqualTo(200);
    conn.ping(); // still usable

    redis.pause();
    long start = System.nanoTime();
    Throwable failure = null;
    try {
      conn.execute(new CommandArguments(Protocol.Command.GET).add("k"));
    } catch (Throwable t) {
      failure = t;
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(failure).isInstanceOf(JedisConnectionException.class);
    assertThat(JedisConnectionFactory.classifyFailure(failure)).isEqualTo(FailureKind.TIMEOUT);
    assertThat(took)
        .isGreaterThanOrEqualTo(Duration.ofMillis(190))
        .isLessThanOrEqualTo(Duration.ofMillis(200).plus(MARGIN));
    assertThat(conn.isBroken()).isTrue(); // the late reply must never be read by another command
  }

  @Test
  void aNodeFrozenWithAFiveSecondSocketTimeoutStillLetsCallsFinishWithinAnEightHundredMsDeadline()
      throws Exception {
    RedisServer r1 = closeLater(RedisServer.start());
    RedisServer r2 = closeLater(RedisServer.start());
    for (RedisServer r : List.of(r1, r2)) {
      try (Jedis j = new Jedis("127.0.0.1", r.port())) {
        for (int i = 0; i < 10; i++) {
          j.set("key:" + i, "value-" + i);
        }
      }
    }
    Host a = host(r1, "rack1");
    Host b = host(r2, "rack2");
    DynoJedisClient client = closeLater(DynoJedisClient.builder()
        .applicationName("readtimeout")
        .hostSupplier(() -> List.of(a, b))
        .tokenMapSupplier(hosts -> List.of(new HostToken(0, a), new HostToken(0, b)))
        .localRack("rack1")
        .datastoreMode(true)
        .config(DynoConfig.builder()
            .applicationName("readtimeout")
            .socketTimeout(SOCKET_TIMEOUT)
            .build())
        .build());
    DynoJedisClient withDeadline =
        client.withOptions(CallOptions.defaults().withDeadline(DEADLINE));
    assertThat(withDeadline.get("key:0")).isEqualTo("value-0");

    r1.pause();
    long slowest = 0;
    for (int i = 0; i < 10; i++) {
      long start = System.nanoTime();
      assertThat(withDeadline.get("key:" + i)).isEqualTo("value-" + i); // from rack2
      slowest = Math.max(slowest, System.nanoTime() - start);
    }
    System.out.printf(
        "Jedis, hung node, 2 racks: slowest of 10 calls %d ms (deadline %d ms, socket timeout %d ms)%n",
        TimeUnit.NANOSECONDS.toMillis(slowest), DEADLINE.toMillis(), SOCKET_TIMEOUT.toMillis());
    assertThat(Duration.ofNanos(slowest)).isLessThanOrEqualTo(DEADLINE.plus(MARGIN));

    // With the other rack frozen too, the caller gets a connection failure within the deadline:
    // each node's run timed out on its share of it (DeadlineExceeded when the last share ran out
    // the deadline itself, else the node failure naming the timeouts).
    r2.pause();
    long start = System.nanoTime();
    assertThatThrownBy(() -> withDeadline.get("key:1"))
        .isInstanceOfAny(DynoDeadlineExceededException.class, DynoNodeFailureException.class)
        .hasMessageContaining("GET");
    long took = System.nanoTime() - start;
    System.out.printf(
        "Jedis, both racks hung: DeadlineExceeded after %d ms%n",
        TimeUnit.NANOSECONDS.toMillis(took));
    assertThat(Duration.ofNanos(took)).isLessThanOrEqualTo(DEADLINE.plus(MARGIN));
  }
}
