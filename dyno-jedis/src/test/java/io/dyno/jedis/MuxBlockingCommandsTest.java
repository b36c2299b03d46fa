package io.dyno.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dyno.core.config.DynoConfig;
import io.dyno.jedis.testing.RedisServers;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;

/**
 * Commands that block their connection until answered (datastore mode: BLPOP and the like) on the
 * multiplexed transport, against a real redis-server: each runs on a socket of its own, so it never
 * holds up the callers sharing the node's connection; the socket is kept for the next one; as an
 * asynchronous call it is refused by name.
 */
class MuxBlockingCommandsTest {

  private static DynoJedisClient client(RedisServers redis) {
    return DynoJedisClient.builder()
        .applicationName("mux-blocking")
        .config(DynoConfig.builder()
            .startupTimeout(Duration.ofSeconds(3))
            .socketTimeout(Duration.ofSeconds(2))
            .build())
        .hostSupplier(redis::hosts)
        .tokenMapSupplier(hosts -> redis.tokens())
        .localRack("rack1")
        .datastoreMode(true)
        .transport(Transport.MULTIPLEXED)
        .build();
  }

  private static long connectedClients(int port) {
    try (Jedis admin = new Jedis("127.0.0.1", port)) {
      String info = admin.info("clients");
      for (String line : info.split("\r\n")) {
        if (line.startsWith("connected_clients:")) {
          return Long.parseLong(line.substring("connected_clients:".length())) - 1; // not this one
        }
      }
      throw new AssertionError("no connected_clients in " + info);
    }
  }

  @Test
  void aBlockingPopWaitsOnASocketOfItsOwnWhileOtherCallersShareTheNodesConnection()
      throws Exception {
    try (RedisServers redis = new RedisServers(1, 1);
        DynoJedisClient client = client(redis)) {
      int port = redis.ports().get(0);
      client.set("warm", "up");
      // The shared connection: its channel and the socket beside it that an idle connection's
      // waiting caller uses.
      assertThat(connectedClients(port)).as("the shared connection").isEqualTo(2);

      CompletableFuture<List<String>> popped =
          CompletableFuture.supplyAsync(() -> client.blpop(10, "jobs"));
      await().atMost(Duration.ofSeconds(5)).until(() -> connectedClients(port) == 3);
      // Meanwhile every other call goes over the shared connection and is answered at once.
      for (int i = 0; i < 200; i++) {
        long t0 = System.nanoTime();
        client.set("k" + i, "v" + i);
        assertThat(client.get("k" + i)).isEqualTo("v" + i);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(500);
      }
      assertThat(popped).isNotDone();
      client.lpush("jobs", "job-1");
      assertThat(popped.get(5, TimeUnit.SECONDS)).containsExactly("jobs", "job-1");

      // A pop that times out answers null; it reuses the socket the first one left.
      long t0 = System.nanoTime();
      assertThat(client.blpop(1, "nothing")).isNull();
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isBetween(900L, 3_000L);
      assertThat(connectedClients(port))
          .as("shared connection + one kept socket")
          .isEqualTo(3);

      // A data error on that socket leaves it usable.
      client.set("not-a-list", "x");
      assertThatThrownBy(() -> client.blpop(1, "not-a-list")).hasMessageContaining("WRONGTYPE");
      client.rpush("jobs", "job-2");
      assertThat(client.brpop(1, "jobs")).containsExactly("jobs", "job-2");
      assertThat(connectedClients(port)).isEqualTo(3);
    }
  }

  @Test
  void asAnAsynchronousCallABlockingCommandIsRefusedByName() throws Exception {
    try (RedisServers redis = new RedisServers(1, 1);
        DynoJedisClient client = client(redis)) {
      CompletableFuture<List<String>> f =
          client.async().execute(new CommandObjects(RedisProtocol.RESP2).blpop(1, "jobs"));
      assertThatThrownBy(f::join)
          .isInstanceOf(CompletionException.class)
          .cause()
          .isInstanceOf(UnsupportedCommandException.class)
          .hasMessageContaining("BLPOP")
          .hasMessageContaining("not asynchronously");
      assertThat(client.lpush("jobs", "a")).as("nothing was popped").isEqualTo(1);
    }
  }
}
