package io.dyno.jedis.internal.mux;

import static io.dyno.jedis.internal.mux.MuxConnectionTest.cmd;
import static io.dyno.jedis.internal.mux.MuxConnectionTest.failureOf;
import static io.dyno.jedis.internal.mux.MuxConnectionTest.str;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dyno.testsupport.RedisServer;
import io.netty.channel.EventLoopGroup;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol.Command;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The shared connection's caller-owned fast path (issue #22), against real redis-server processes:
 * idle, a waiting caller writes and reads on its own thread; busy, commands coalesce on the channel
 * behind it; its timeouts, late replies and a hung node follow the channel's rules.
 */
class MuxDirectSocketTest {
  static final long SECOND = SECONDS.toNanos(1);
  static final long MILLI = 1_000_000L;
  static EventLoopGroup group;

  /**
   * A caller as an application's: a platform thread of its own (fork-join workers, which the
   * common pool may hand supplyAsync to, never take the caller socket).
   */
  static final Executor CALLER = task -> {
    Thread t = new Thread(task, "caller");
    t.setDaemon(true);
    t.start();
  };

  @BeforeAll
  static void loop() {
    group = MuxConnection.newEventLoopGroup(1, "mux-direct-test");
  }

  @AfterAll
  static void stop() {
    group.shutdownGracefully(0, 1, SECONDS).syncUninterruptibly();
  }

  static MuxConnection open(RedisServer r, MuxSettings s) {
    return MuxConnection.open(MuxConnectionTest.name(r), r.address(), group, s, null);
  }

  @Test
  void anIdleConnectionLetsAWaitingCallerWriteAndReadOnItsOwnThreadWhileSubmitsUseTheChannel()
      throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.defaults())) {
      CompletableFuture<Object> set = c.call(cmd(Command.SET, "d", "1"), SECOND, false);
      assertThat(set).as("answered before call returned: no hand-off").isDone();
      assertThat(str(set.join())).isEqualTo("OK");
      assertThat(str(c.call(cmd(Command.GET, "d"), SECOND, false).join())).isEqualTo("1");
      assertThat(c.directWrites()).isEqualTo(2);

      assertThat(str(c.submit(cmd(Command.GET, "d"), SECOND).get(5, SECONDS)))
          .as("the asynchronous API")
          .isEqualTo("1");
      assertThat(c.directWrites())
          .as("a submit never blocks its caller on the socket")
          .isEqualTo(2);
      assertThat(c.flushes()).isEqualTo(3);
      assertThat(c.call(cmd(Command.HGET, "d", "f"), SECOND, false).join())
          .as("an error reply is a value, the socket stays in step")
          .isInstanceOf(Exception.class);
      assertThat(str(c.call(cmd(Command.GET, "d"), SECOND, false).join())).isEqualTo("1");
      assertThat(c.isBroken()).isFalse();
    }
  }

  @Test
  void whileTheCallersOwnRequestAwaitsItsReplyOthersQueueAndLeaveTogetherInOneWrite()
      throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.defaults())) {
      c.call(cmd(Command.SET, "q0", "0"), SECOND, false).join(); // the socket is open
      long flushesBefore = c.flushes();
      List<CompletableFuture<Object>> later = new ArrayList<>();
      CompletableFuture<Object> first;
      redis.pause();
      try {
        first = CompletableFuture.supplyAsync(
            () -> c.call(cmd(Command.INCR, "q0"), 10 * SECOND, false).join(), CALLER);
        await()
            .atMost(Duration.ofSeconds(2))
            .until(() -> c.inFlight() == 1 && c.directWrites() == 2);
        for (int i = 1; i <= 5; i++) {
          later.add(c.call(cmd(Command.SET, "q" + i, String.valueOf(i)), 10 * SECOND, false));
        }
        group.submit(() -> {}).get(5, SECONDS); // the drains those calls scheduled have run
        assertThat(c.queued()).as("held back behind the caller's own request").isEqualTo(5);
        assertThat(c.flushes() - flushesBefore).isEqualTo(1);
      } finally {
        redis.resume();
      }
      assertThat(first.get(5, SECONDS)).isEqualTo(1L);
      for (int i = 0; i < later.size(); i++) {
        assertThat(str(later.get(i).get(5, SECONDS))).isEqualTo("OK");
      }
      assertThat(c.flushes() - flushesBefore)
          .as("the five left in one write once the first was answered")
          .isEqualTo(2);
      assertThat(c.commandsWritten()).isEqualTo(7);
    }
  }

  @Test
  void aCallerOutOfTimeFailsAsATimeoutAndItsLateReplyIsDroppedWhileWhatQueuedBehindFailsUnsent()
      throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c =
            open(redis, MuxSettings.defaults().withSocketTimeout(Duration.ofSeconds(5)))) {
      c.call(cmd(Command.SET, "late", "v"), SECOND, false).join();
      CompletableFuture<Object> behind;
      Throwable timedOut;
      redis.pause();
      try {
        CompletableFuture<CompletableFuture<Object>> caller = CompletableFuture.supplyAsync(
            () -> c.call(cmd(Command.INCR, "late:n"), 300 * MILLI, false), CALLER);
        await().atMost(Duration.ofSeconds(2)).until(() -> c.inFlight() == 1);
        behind = c.call(cmd(Command.INCR, "late:m"), 200 * MILLI, false);
        timedOut = failureOf(caller.get(5, SECONDS));
        await().atMost(Duration.ofSeconds(2)).until(behind::isDone);
      } finally {
        redis.resume();
      }
      assertThat(timedOut)
          .isInstanceOf(JedisConnectionException.class)
          .isNotInstanceOf(NotSentException.class)
          .hasMessageContaining("within its timeout")
          .hasCauseInstanceOf(SocketTimeoutException.class);
      assertThat(failureOf(behind))
          .as("queued behind the unanswered request: never sent")
          .isInstanceOf(NotSentException.class);
      await()
          .atMost(Duration.ofSeconds(3))
          .until(() -> c.inFlight() == 0); // the late reply was read and dropped
      assertThat(str(c.call(cmd(Command.GET, "late"), SECOND, false).join())).isEqualTo("v");
      assertThat(c.isBroken()).isFalse();
    }
  }

  @Test
  void aReplyOwedPastTheSocketTimeoutMeansTheNodeHungAndClosesTheConnection() throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c =
            open(redis, MuxSettings.defaults().withSocketTimeout(Duration.ofMillis(600)))) {
      c.call(cmd(Command.PING), SECOND, false).join();
      redis.pause();
      try {
        Throwable t = failureOf(c.call(cmd(Command.GET, "hung"), 200 * MILLI, false));
        assertThat(t).hasCauseInstanceOf(SocketTimeoutException.class);
        await().atMost(Duration.ofSeconds(3)).until(c::isBroken);
      } finally {
        redis.resume();
      }
      assertThat(c.failure())
          .hasMessageContaining("has not answered for")
          .hasCauseInstanceOf(SocketTimeoutException.class);
      assertThat(c.inFlight()).isZero();
    }
  }
}
