package io.dyno.jedis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dyno.core.Host;
import io.dyno.jedis.internal.mux.MuxConnection;
import io.dyno.jedis.internal.mux.MuxNodeChannels;
import io.dyno.jedis.internal.mux.MuxSettings;
import io.dyno.testsupport.RedisServer;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * {@code abandon()}, which the engine calls once a node is found silent: a call already waiting on
 * that node's reply fails at once as a connection failure, on both transports, instead of at its
 * 5 s timeout. Against a real redis-server frozen with SIGSTOP (the socket open, nothing answers).
 */
class AbandonedConnectionTest {
  static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(5);
  /** Far below the socket timeout: the call ended because it was abandoned, not timed out. */
  static final long ENDED_WITHIN_MS = 2_000;

  @Test
  void aPooledSocketsBlockedReadFailsAtOnceWhenAbandoned() throws Exception {
    try (RedisServer redis = RedisServer.start()) {
      Host host = Host.builder(redis.host(), redis.port())
          .rack("rack1")
          .datacenter("dc1")
          .build();
      SocketNodeConnection conn =
          (SocketNodeConnection) new JedisConnectionFactory(JedisConnectionFactory.Datastore.off())
              .open(host, Duration.ofSeconds(1), SOCKET_TIMEOUT);
      redis.pause();
      try {
        CompletableFuture<Object> call = new CompletableFuture<>();
        Thread caller = new Thread(
            () -> {
              try {
                call.complete(conn.execute(new CommandArguments(Protocol.Command.GET).add("k")));
              } catch (RuntimeException e) {
                call.completeExceptionally(e);
              }
            },
            "blocked-caller");
        caller.setDaemon(true);
        caller.start();
        await("the caller blocked in its socket read")
            .atMost(Duration.ofSeconds(5))
            .until(() -> blockedInRead(caller));

        long start = System.nanoTime();
        conn.abandon();

        assertThat(failureOf(call)).isInstanceOf(JedisConnectionException.class);
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(ENDED_WITHIN_MS);
        assertThat(conn.isBroken()).as("never handed out again").isTrue();
      } finally {
        redis.resume();
        conn.close();
      }
    }
  }

  @Test
  void everyRequestOnAMultiplexedNodesConnectionsFailsAtOnceWhenAbandoned() throws Exception {
    EventLoopGroup group = MuxConnection.newEventLoopGroup(1, "abandon-test");
    try (RedisServer redis = RedisServer.start();
        MuxNodeChannels channels = new MuxNodeChannels(
            "node",
            redis.address(),
            group,
            MuxSettings.builder().socketTimeout(SOCKET_TIMEOUT).build(),
            1)) {
      MuxConnection c = channels.connection(null);
      redis.pause();
      try {
        CompletableFuture<Object> a =
            c.submit(new CommandArguments(Protocol.Command.GET).add("a"), SOCKET_TIMEOUT.toNanos());
        CompletableFuture<Object> b =
            c.submit(new CommandArguments(Protocol.Command.GET).add("b"), SOCKET_TIMEOUT.toNanos());
        await().atMost(Duration.ofSeconds(2)).until(() -> c.inFlight() >= 1);

        long start = System.nanoTime();
        channels.abandon("found silent and taken out of rotation");

        assertThat(failureOf(a))
            .isInstanceOf(JedisConnectionException.class)
            .hasMessageContaining("node")
            .hasMessageContaining("found silent");
        assertThat(failureOf(b)).isInstanceOf(JedisConnectionException.class);
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(ENDED_WITHIN_MS);
      } finally {
        redis.resume();
      }
      assertThat(channels.connection(null))
          .as("a later call opens a new connection")
          .isNotSameAs(c);
    } finally {
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }
  }

  private static boolean blockedInRead(Thread t) {
    return Arrays.stream(t.getStackTrace())
        .anyMatch(f -> f.getMethodName().startsWith("read")
            && (f.getClassName().startsWith("sun.nio.ch")
                || f.getClassName().startsWith("java.net")));
  }

  private static Throwable failureOf(CompletableFuture<?> f) throws InterruptedException {
    try {
      f.get(ENDED_WITHIN_MS + SOCKET_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      return e;
    }
  }
}
