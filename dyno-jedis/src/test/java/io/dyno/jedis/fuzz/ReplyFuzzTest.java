package io.dyno.jedis.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.dyno.core.DeadlineExceededException;
import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.exec.CallOptions;
import io.dyno.jedis.DynoDeadlineExceededException;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.DynoPoolExhaustedException;
import io.dyno.jedis.Transport;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The client's reply handling against a fuzzed RESP server: every command is answered with the
 * fuzzer's bytes (then, maybe, the connection is closed). Property: the call returns or throws a
 * typed Dyno or Jedis exception, within its deadline; and the next call, once the server answers
 * correctly again, returns the right value through the same client (no pooled connection is left
 * holding unread bytes of a bad reply). The client keeps its default retry policy: a connection
 * the server closed after its reply fails the next call's first attempt, which is retried. Every
 * input is tried on both transports: pooled sockets (Jedis's reader behind {@code StrictReplyStream})
 * and the shared multiplexed connection (its own {@code RespDecoder}).
 */
class ReplyFuzzTest {
  private static final Duration DEADLINE = Duration.ofMillis(800);
  private static FuzzedRespServer server;
  private static DynoJedisClient pooled;
  private static DynoJedisClient multiplexed;

  @BeforeAll
  static void start() throws Exception {
    server = new FuzzedRespServer();
    Host host = Host.builder("127.0.0.1", server.port())
        .ipAddress("127.0.0.1")
        .rack("rack1")
        .datacenter("dc1")
        .build();
    DynoConfig config = DynoConfig.builder()
        .applicationName("replyfuzz")
        .connectTimeout(Duration.ofMillis(500))
        .socketTimeout(Duration.ofMillis(150))
        .maxConnsPerHost(2)
        .healthErrorThreshold(1000)
        .build();
    pooled = client(host, config, Transport.POOLED);
    multiplexed = client(host, config, Transport.MULTIPLEXED);
    // Warm up (class loading, JIT, the pool) so the deadline check measures the client, not the
    // JVM.
    // On a loaded machine (Jazzer's instrumentation, a parallel build) a first call can outlast the
    // 150 ms socket timeout: that is what warming up is for, so a slow first round is tried again.
    server.good();
    for (DynoJedisClient client : List.of(pooled, multiplexed)) {
      int slowRounds = 0;
      for (int i = 0; i < 20; i++) {
        try {
          client.set("k", "v");
          client.get("k");
          client.mget("k1", "k2");
          client.hgetAll("h");
        } catch (RuntimeException coldJvm) {
          if (++slowRounds > 20) {
            throw coldJvm; // not the JVM warming up: the client cannot talk to a good server
          }
          i--;
        }
      }
    }
  }

  private static DynoJedisClient client(Host host, DynoConfig config, Transport transport) {
    return DynoJedisClient.builder()
        .config(config)
        .localRack("rack1")
        .transport(transport)
        .hostSupplier(() -> List.of(host))
        .tokenMapSupplier(hosts -> List.of(new HostToken(0L, host)))
        .callOptions(CallOptions.defaults().withDeadline(DEADLINE))
        .build();
  }

  @AfterAll
  static void stop() throws Exception {
    pooled.close();
    multiplexed.close();
    server.close();
  }

  private static String snapshot() {
    try {
      MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
      StringBuilder sb = new StringBuilder();
      for (ObjectName n : mbs.queryNames(new ObjectName("io.dyno:*"), null)) {
        sb.append(mbs.getAttribute(n, "Snapshot"));
      }
      return sb.toString();
    } catch (Exception e) {
      return "(no snapshot: " + e + ")";
    }
  }

  @FuzzTest(maxDuration = "10s")
  void replies(FuzzedDataProvider data) {
    boolean close = data.consumeBoolean();
    int command = data.consumeInt(0, 3);
    byte[] reply = data.consumeRemainingAsBytes();
    try (var allowed = BugDetectors.allowNetworkConnections(
        (h, p) -> h.equals("localhost") || h.startsWith("127."))) {
      for (DynoJedisClient client : List.of(pooled, multiplexed)) {
        reply(client, close, command, reply);
      }
    }
  }

  private static void reply(DynoJedisClient client, boolean close, int command, byte[] reply) {
    server.fuzz(reply, close);
    long start = System.nanoTime();
    try {
      switch (command) {
        case 0 -> client.get("k");
        case 1 -> client.set("k", "v");
        case 2 -> client.mget("k1", "k2");
        default -> client.hgetAll("h");
      }
    } catch (JedisException e) { // every failure of a call, Dyno's own included
      assertThat(e.getMessage()).as("message of %s", e.getClass().getName()).isNotBlank();
    }
    long tookMillis = (System.nanoTime() - start) / 1_000_000;
    assertThat(tookMillis).as("call outlived its deadline").isLessThan(DEADLINE.toMillis() + 2_000);
    server.good();
    // Every value read from now on must be the server's: a connection holding bytes of a bad reply
    // would return them. A call may still time out waiting for the pool to refill (a pool timeout,
    // or the deadline passing before a connection came back) (reported as an
    // open finding: README, "Fuzzing and hostile input"), never for longer than the pool's
    // maintenance needs to reopen a connection.
    long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    int ok = 0;
    while (ok < 2) {
      try {
        assertThat(client.get("k")).as("a call after a bad reply").isEqualTo("ok");
        ok++;
      } catch (DynoPoolExhaustedException | DynoDeadlineExceededException e) {
        // Either way nothing was sent: the pool had no connection before the deadline.
        if (e instanceof DynoDeadlineExceededException d
            && ((DeadlineExceededException) d.dynoCause()).attempts() != 0) {
          throw d;
        }
        if (System.nanoTime() > until) {
          throw new AssertionError(
              "no connection for 5 s after a bad reply; pool: " + snapshot(), e);
        }
      }
    }
  }
}
