package io.dyno.jedis.internal.mux;

import static io.dyno.jedis.internal.mux.MuxConnectionTest.cmd;
import static io.dyno.jedis.internal.mux.MuxConnectionTest.failureOf;
import static io.dyno.jedis.internal.mux.MuxConnectionTest.str;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dyno.core.testing.ManualScheduler;
import io.dyno.core.time.Ticker;
import io.dyno.testsupport.RedisServer;
import io.netty.channel.EventLoopGroup;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol.Command;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * The shared connection's caller sockets (issue #22), against real redis-server processes: while
 * the channel holds nothing they could overtake, waiting callers each take a socket of their own
 * and read their reply on their own thread; beyond the sockets, behind a request no caller waits
 * on, or behind a request that has gone unanswered too long, commands go to the channel; timeouts, late replies and a hung node follow the channel's rules;
 * and an idle connection costs its event loop no timer.
 */
class MuxCallerSocketsTest {
  static final long SECOND = SECONDS.toNanos(1);
  static final long MILLI = 1_000_000L;
  static final Duration PAST_STALE = Duration.ofNanos(MuxCallerSockets.STALE_NANOS + MILLI);
  static EventLoopGroup group;
  static final ForkJoinPool WORKERS = new ForkJoinPool(2);

  /**
   * A caller as an application's: a platform thread of its own (fork-join workers, which the
   * common pool may hand supplyAsync to, never take a caller socket).
   */
  static final Executor CALLER = task -> {
    Thread t = new Thread(task, "caller");
    t.setDaemon(true);
    t.start();
  };

  @BeforeAll
  static void loop() {
    group = MuxConnection.newEventLoopGroup(1, "mux-callers-test");
  }

  @AfterAll
  static void stop() {
    group.shutdownGracefully(0, 1, SECONDS).syncUninterruptibly();
    WORKERS.shutdownNow();
  }

  static MuxConnection open(RedisServer r, MuxSettings s) {
    return MuxConnection.open(MuxConnectionTest.name(r), r.address(), group, s, null);
  }

  /** {@code c.call} on a caller thread of its own. */
  static CompletableFuture<Object> callOnOwnThread(
      MuxConnection c, Command command, String... args) {
    return CompletableFuture.supplyAsync(
            () -> c.call(cmd(command, args), 10 * SECOND, false), CALLER)
        .thenCompose(f -> f);
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
      assertThat(c.callerSocketsOpen())
          .as("one caller at a time needs one socket")
          .isEqualTo(1);

      assertThat(str(c.submit(cmd(Command.GET, "d"), SECOND).get(5, SECONDS)))
          .as("the asynchronous API")
          .isEqualTo("1");
      assertThat(c.directWrites())
          .as("a submit never blocks its caller on a socket")
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
  void concurrentCallersEachTakeASocketOfTheirOwnUpToTheLimitThenUseTheChannel() throws Exception {
    // On a clock that stands still no request turns stale, however long the paused server waits.
    ManualScheduler clock = new ManualScheduler();
    MuxSettings s = MuxSettings.builder().callerSockets(2).ticker(clock).build();
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, s)) {
      long flushesBefore = c.flushes();
      CompletableFuture<Object> first;
      CompletableFuture<Object> second;
      CompletableFuture<Object> third;
      redis.pause();
      try {
        first = callOnOwnThread(c, Command.INCR, "n");
        second = callOnOwnThread(c, Command.INCR, "n");
        await().atMost(Duration.ofSeconds(5)).until(() -> c.directWrites() == 2);
        assertThat(c.inFlight()).as("one request on each socket").isEqualTo(2);
        third = c.call(cmd(Command.INCR, "n"), 10 * SECOND, false);
        assertThat(third).as("every socket taken: it went to the channel").isNotDone();
        await().atMost(Duration.ofSeconds(5)).until(() -> c.flushes() - flushesBefore == 3);
        assertThat(c.queued()).as("the channel writes it at once").isZero();
      } finally {
        redis.resume();
      }
      List<Long> counts = new ArrayList<>();
      for (CompletableFuture<Object> f : List.of(first, second, third)) {
        counts.add((Long) f.get(5, SECONDS));
      }
      assertThat(counts).containsExactlyInAnyOrder(1L, 2L, 3L);
      assertThat(c.callerSocketsOpen()).isEqualTo(2);
      assertThat(c.inFlight()).isZero();
    }
  }

  /**
   * {@code c.call} on a fork-join worker, which never takes a caller socket: a waited request on the
   * channel. A pool of its own: CompletableFuture swaps a one-worker common pool for a thread per task.
   */
  static CompletableFuture<Object> callOnTheChannel(
      MuxConnection c, long timeoutNanos, Command command, String... args) {
    return CompletableFuture.supplyAsync(
            () -> c.call(cmd(command, args), timeoutNanos, false), WORKERS)
        .thenCompose(f -> f);
  }

  @Test
  void aChannelBusyOnlyWithOtherThreadsBlockingCallsDoesNotKeepACallerOffItsSocket()
      throws Exception {
    ManualScheduler clock = new ManualScheduler(); // stands still: nothing turns stale
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.builder().ticker(clock).build())) {
      CompletableFuture<Object> onChannel;
      CompletableFuture<Object> onSocket;
      redis.pause();
      try {
        onChannel = callOnTheChannel(c, 10 * SECOND, Command.INCR, "w");
        await().atMost(Duration.ofSeconds(5)).until(() -> c.inFlight() == 1);
        assertThat(c.detachedRequests()).as("its caller waits on it").isZero();
        onSocket = callOnOwnThread(c, Command.INCR, "w");
        await().atMost(Duration.ofSeconds(5)).until(() -> c.directWrites() == 1);
      } finally {
        redis.resume();
      }
      assertThat(List.of(onChannel.get(5, SECONDS), onSocket.get(5, SECONDS)))
          .containsExactlyInAnyOrder(1L, 2L);
      assertThat(c.inFlight()).isZero();
    }
  }

  @Test
  void anAsynchronousCommandOnTheChannelKeepsTheNextCallBehindItInOrder() throws Exception {
    ManualScheduler clock = new ManualScheduler();
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.builder().ticker(clock).build())) {
      CompletableFuture<Object> async;
      CompletableFuture<Object> next;
      redis.pause();
      try {
        async = c.submit(cmd(Command.SET, "o", "async"), 10 * SECOND);
        assertThat(c.detachedRequests()).as("no caller waits on it").isEqualTo(1);
        next = c.call(cmd(Command.SET, "o", "next"), 10 * SECOND, false);
        assertThat(next).as("it went to the channel behind the submit").isNotDone();
        assertThat(c.directWrites()).isZero();
      } finally {
        redis.resume();
      }
      assertThat(str(async.get(5, SECONDS))).isEqualTo("OK");
      assertThat(str(next.get(5, SECONDS))).isEqualTo("OK");
      assertThat(c.detachedRequests()).as("answered: it holds nothing back").isZero();
      assertThat(str(c.call(cmd(Command.GET, "o"), SECOND, false).join()))
          .as("applied in the order sent, and now on a caller socket")
          .isEqualTo("next");
      assertThat(c.directWrites()).isEqualTo(1);
    }
  }

  @Test
  void aBlockingCallWhoseTimeoutPassedOnTheChannelHoldsLaterCallsBehindItsLateReply()
      throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(
            redis, MuxSettings.builder().socketTimeout(Duration.ofSeconds(5)).build())) {
      Throwable timedOut;
      CompletableFuture<Object> next;
      redis.pause();
      try {
        CompletableFuture<Object> late = callOnTheChannel(c, 200 * MILLI, Command.SET, "t", "late");
        await().atMost(Duration.ofSeconds(3)).until(late::isDone);
        timedOut = failureOf(late);
        assertThat(c.detachedRequests()).as("sent, unanswered, its caller gone").isEqualTo(1);
        next = c.call(cmd(Command.SET, "t", "next"), 10 * SECOND, false);
        assertThat(c.directWrites()).as("it must not overtake the late write").isZero();
      } finally {
        redis.resume();
      }
      assertThat(timedOut).hasCauseInstanceOf(SocketTimeoutException.class);
      assertThat(str(next.get(5, SECONDS))).isEqualTo("OK");
      await().atMost(Duration.ofSeconds(3)).until(() -> c.detachedRequests() == 0);
      assertThat(str(c.call(cmd(Command.GET, "t"), SECOND, false).join())).isEqualTo("next");
    }
  }

  @Test
  void aChannelWithNoReplyPastTheStaleMarkSendsCallersThereUnsentNotToASocket() throws Exception {
    ManualScheduler clock = new ManualScheduler();
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.builder().ticker(clock).build())) {
      CompletableFuture<Object> onChannel;
      CompletableFuture<Object> next;
      redis.pause();
      try {
        onChannel = callOnTheChannel(c, 10 * SECOND, Command.INCR, "f");
        await().atMost(Duration.ofSeconds(5)).until(() -> c.inFlight() == 1);
        clock.advance(PAST_STALE);
        next = c.call(cmd(Command.INCR, "f"), 10 * SECOND, false);
        assertThat(c.directWrites()).as("the node may be frozen").isZero();
        assertThat(next).isNotDone();
      } finally {
        redis.resume();
      }
      assertThat(onChannel.get(5, SECONDS)).isEqualTo(1L);
      assertThat(next.get(5, SECONDS)).isEqualTo(2L);
    }
  }

  @Test
  void aNodeWithCallersEnoughToCoalesceUsesTheChannelUntilTheLoadFalls() throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.builder().callerSockets(8).build())) {
      MuxCallerSockets sockets = c.callerSockets();
      assertThat(sockets.coalesce(7))
          .as("one call seeing seven in flight is a burst, not yet a crowd")
          .isFalse();
      int calls = 0;
      while (!sockets.coalesce(8)) {
        calls++;
        assertThat(calls).as("eight callers, call after call").isLessThan(20);
      }
      for (int i = 0; i < 30; i++) {
        assertThat(sockets.coalesce(8)).as("steady: stays on the channel").isTrue();
      }
      calls = 0;
      while (sockets.coalesce(2)) {
        calls++;
        assertThat(calls).as("the load fell to two callers").isLessThan(20);
      }
      for (int i = 0; i < 30; i++) {
        assertThat(sockets.coalesce(4))
            .as("half as many callers as sockets: sockets")
            .isFalse();
      }
    }
  }

  @Test
  void withNoCallerSocketsTheChannelCarriesEveryCall() throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.builder().callerSockets(0).build())) {
      long flushesBefore = c.flushes();
      for (int i = 0; i < 3; i++) {
        assertThat(str(c.call(cmd(Command.SET, "c" + i, "v"), SECOND, false).get(5, SECONDS)))
            .isEqualTo("OK");
      }
      assertThat(c.directWrites()).isZero();
      assertThat(c.callerSocketsOpen()).isZero();
      assertThat(c.flushes() - flushesBefore).isEqualTo(3);
    }
  }

  @Test
  void behindAStaleCallerSocketRequestCommandsQueueOnTheChannelAndLeaveTogetherOnceItIsAnswered()
      throws Exception {
    ManualScheduler clock = new ManualScheduler();
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.builder().ticker(clock).build())) {
      c.call(cmd(Command.SET, "q0", "0"), SECOND, false).join(); // a socket is open
      long flushesBefore = c.flushes();
      List<CompletableFuture<Object>> later = new ArrayList<>();
      CompletableFuture<Object> first;
      redis.pause();
      try {
        first = callOnOwnThread(c, Command.INCR, "q0");
        await().atMost(Duration.ofSeconds(5)).until(() -> c.directWrites() == 2);
        assertThat(c.staleCallerRequests(clock.nanoTime())).isZero();
        clock.advance(PAST_STALE);
        assertThat(c.staleCallerRequests(clock.nanoTime()))
            .as("unanswered past the stale mark: the node may be frozen")
            .isEqualTo(1);
        for (int i = 1; i <= 5; i++) {
          later.add(c.call(cmd(Command.SET, "q" + i, String.valueOf(i)), 10 * SECOND, false));
        }
        group.submit(() -> {}).get(5, SECONDS); // the drains those calls scheduled have run
        assertThat(c.queued()).as("held back behind the stale request, unsent").isEqualTo(5);
        assertThat(c.callerSocketsOpen()).as("no other socket was taken").isEqualTo(1);
        assertThat(c.flushes() - flushesBefore).isEqualTo(1);
      } finally {
        redis.resume();
      }
      assertThat(first.get(5, SECONDS)).isEqualTo(1L);
      for (CompletableFuture<Object> f : later) {
        assertThat(str(f.get(5, SECONDS))).isEqualTo("OK");
      }
      assertThat(c.flushes() - flushesBefore)
          .as("the five left in one write once the stale request was answered")
          .isEqualTo(2);
      assertThat(c.commandsWritten()).isEqualTo(7);
    }
  }

  @Test
  void aCallerOutOfTimeFailsAsATimeoutAndItsLateReplyIsDroppedWhileWhatQueuedBehindFailsUnsent()
      throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(
            redis, MuxSettings.builder().socketTimeout(Duration.ofSeconds(5)).build())) {
      c.call(cmd(Command.SET, "late", "v"), SECOND, false).join();
      CompletableFuture<Object> behind;
      Throwable timedOut;
      redis.pause();
      try {
        CompletableFuture<CompletableFuture<Object>> caller = CompletableFuture.supplyAsync(
            () -> c.call(cmd(Command.INCR, "late:n"), 300 * MILLI, false), CALLER);
        await()
            .atMost(Duration.ofSeconds(2))
            .until(() -> c.staleCallerRequests(Ticker.system().nanoTime()) == 1);
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
        MuxConnection c = open(
            redis, MuxSettings.builder().socketTimeout(Duration.ofMillis(600)).build())) {
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

  /** A client holding connections to a hundred quiet nodes must not wake its event loops for them. */
  @Test
  void theTimeoutTickRunsOnlyWhileSomethingCanExpire() throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.defaults())) {
      await().atMost(Duration.ofSeconds(2)).until(() -> !c.ticking());
      assertThat(str(c.call(cmd(Command.SET, "t", "1"), SECOND, false).join())).isEqualTo("OK");
      assertThat(c.ticking())
          .as("a caller socket's read is bounded by the socket")
          .isFalse();
      CompletableFuture<Object> queued;
      redis.pause();
      try {
        queued = c.submit(cmd(Command.GET, "t"), 10 * SECOND);
        assertThat(c.ticking()).as("a request on the channel").isTrue();
      } finally {
        redis.resume();
      }
      assertThat(str(queued.get(5, SECONDS))).isEqualTo("1");
      await().atMost(Duration.ofSeconds(2)).until(() -> !c.ticking());
    }
  }
}
