package io.dyno.jedis.internal.mux;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.FailureKind;
import io.dyno.core.testing.ManualScheduler;
import io.dyno.core.time.Ticker;
import io.dyno.jedis.internal.JedisConnectionFactory;
import io.dyno.testsupport.RedisServer;
import io.netty.channel.EventLoopGroup;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol.Command;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ClientKillParams;

/** MuxConnection against real redis-server processes. */
class MuxConnectionTest {
  static final long SECOND = TimeUnit.SECONDS.toNanos(1);
  static EventLoopGroup group;

  @BeforeAll
  static void loop() {
    // One event-loop thread for every connection: a hung node must not hold up another's replies
    // even then.
    group = MuxConnection.newEventLoopGroup(1, "mux-test");
  }

  @AfterAll
  static void stop() {
    group.shutdownGracefully(0, 1, SECONDS).syncUninterruptibly();
  }

  /** How a test names the server to MuxConnection, and so how its errors name it. */
  static String name(RedisServer r) {
    return "redis@" + r.hostAndPort();
  }

  static MuxConnection open(RedisServer r, MuxSettings s) {
    return MuxConnection.open(name(r), r.address(), group, s, null);
  }

  static CommandArguments cmd(Command c, String... args) {
    CommandArguments a = new CommandArguments(c);
    for (String s : args) {
      a.add(s);
    }
    return a;
  }

  static String str(Object raw) {
    return raw == null ? null : new String((byte[]) raw, StandardCharsets.UTF_8);
  }

  static Throwable failureOf(CompletableFuture<?> f) {
    assertThat(f).isCompletedExceptionally();
    try {
      f.join();
      throw new AssertionError("not failed");
    } catch (CompletionException e) {
      return e.getCause();
    }
  }

  @Test
  void fortyThreadsSharingOneConnectionEachGetTheirOwnValueAndWritesCoalesce() throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.defaults())) {
      int threads = 40;
      int rounds = 250;
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Integer>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        done.add(pool.submit(() -> {
          go.await();
          int ok = 0;
          for (int i = 0; i < rounds; i++) {
            String k = "k_" + id + "_" + i;
            String v = "v_" + id + "_" + i;
            assertThat(str(c.submit(cmd(Command.SET, k, v), 5 * SECOND).get())).isEqualTo("OK");
            assertThat(str(c.submit(cmd(Command.GET, k), 5 * SECOND).get())).isEqualTo(v);
            ok++;
          }
          return ok;
        }));
      }
      go.countDown();
      for (Future<Integer> f : done) {
        assertThat(f.get(60, SECONDS)).isEqualTo(rounds);
      }
      pool.shutdown();
      long commands = c.commandsWritten();
      long flushes = c.flushes();
      System.out.printf(
          "40 threads: %d commands in %d flushes (%.1f per flush)%n",
          commands, flushes, (double) commands / flushes);
      assertThat(commands).isEqualTo(2L * threads * rounds);
      assertThat(flushes)
          .isLessThan(commands / 2); // one flush per command would mean no coalescing
      assertThat(c.inFlight()).isZero();
      assertThat(c.queued()).isZero();
    }
  }

  /** Runs after everything already queued on the (single) event-loop thread: the drains those submits scheduled. */
  static void afterQueuedLoopWork() throws Exception {
    group.submit(() -> {}).get(5, SECONDS);
  }

  @Test
  void whileAWriteAwaitsItsReplyLaterCommandsQueueAndLeaveTogetherInOneWrite() throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.defaults())) {
      long flushesBefore = c.flushes();
      redis.pause();
      List<CompletableFuture<Object>> later = new ArrayList<>();
      CompletableFuture<Object> first;
      try {
        first = c.submit(cmd(Command.SET, "w0", "0"), 10 * SECOND);
        await().atMost(Duration.ofSeconds(2)).until(() -> c.inFlight() == 1);
        for (int i = 1; i <= 10; i++) {
          later.add(c.submit(cmd(Command.SET, "w" + i, String.valueOf(i)), 10 * SECOND));
        }
        afterQueuedLoopWork();
        assertThat(c.flushes() - flushesBefore)
            .as("writes while the first awaits its reply")
            .isEqualTo(1);
        assertThat(c.queued()).as("held back behind the unanswered write").isEqualTo(10);
        assertThat(c.inFlight()).isEqualTo(1);
      } finally {
        redis.resume();
      }
      assertThat(str(first.get(5, SECONDS))).isEqualTo("OK");
      for (CompletableFuture<Object> f : later) {
        assertThat(str(f.get(5, SECONDS))).isEqualTo("OK");
      }
      assertThat(c.flushes() - flushesBefore)
          .as("the ten left in one write once the first was answered")
          .isEqualTo(2);
      assertThat(str(c.submit(cmd(Command.GET, "w10"), SECOND).get())).isEqualTo("10");
      assertThat(c.queued()).isZero();
      assertThat(c.inFlight()).isZero();
    }
  }

  @Test
  void withNoBoundOnWritesInFlightCommandsLeaveWithoutWaitingForReplies() throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.builder().maxWritesInFlight(0).build())) {
      redis.pause();
      List<CompletableFuture<Object>> sent = new ArrayList<>();
      try {
        sent.add(c.submit(cmd(Command.SET, "n0", "0"), 10 * SECOND));
        await().atMost(Duration.ofSeconds(2)).until(() -> c.inFlight() == 1);
        for (int i = 1; i <= 10; i++) {
          sent.add(c.submit(cmd(Command.SET, "n" + i, String.valueOf(i)), 10 * SECOND));
        }
        afterQueuedLoopWork();
        assertThat(c.queued()).as("nothing waits for the unanswered write").isZero();
        assertThat(c.inFlight()).isEqualTo(11);
      } finally {
        redis.resume();
      }
      for (CompletableFuture<Object> f : sent) {
        assertThat(str(f.get(5, SECONDS))).isEqualTo("OK");
      }
    }
  }

  @Test
  void aRequestQueuedBehindAWriteThatIsNeverAnsweredFailsUnsentAtItsTimeout() throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(
            redis, MuxSettings.builder().socketTimeout(Duration.ofSeconds(5)).build())) {
      CompletableFuture<Object> stuck;
      CompletableFuture<Object> queued;
      long t0;
      redis.pause();
      try {
        stuck = c.submit(cmd(Command.GET, "frozen"), 3 * SECOND);
        await().atMost(Duration.ofSeconds(2)).until(() -> c.inFlight() == 1);
        t0 = System.nanoTime();
        queued = c.submit(cmd(Command.INCR, "counter"), 300 * 1_000_000L);
        Throwable t = failureOf(waitDone(queued));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertThat(t)
            .isInstanceOf(NotSentException.class)
            .hasMessageContaining("INCR was not sent to " + name(redis))
            .hasRootCauseInstanceOf(SocketTimeoutException.class);
        assertThat(ms)
            .as("failed at its own timeout, not the unanswered write's")
            .isBetween(290L, 1_000L);
        assertThat(((NotSentException) t).behindUnansweredNanos() / 1_000_000)
            .as("how long the node had left the write it queued behind unanswered: its silence")
            .isGreaterThanOrEqualTo(290L);
        assertThat(c.queued()).isZero();
        assertThat(stuck).isNotDone();
      } finally {
        redis.resume();
      }
      assertThat(stuck.get(5, SECONDS)).isNull();
      assertThat(c.submit(cmd(Command.GET, "counter"), SECOND).get())
          .as("the INCR never ran")
          .isNull();
      assertThat(c.isBroken()).isFalse();
    }
  }

  @Test
  void aRequestOutOfTimeBeforeItsWriteIsNotSentAndSaysSo() throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.defaults())) {
      CompletableFuture<Object> late = c.submit(cmd(Command.INCR, "never"), 0);
      await().atMost(Duration.ofSeconds(5)).until(late::isDone);
      assertThat(failureOf(late))
          .isInstanceOf(NotSentException.class)
          .hasMessageContaining("was not sent to " + name(redis))
          .hasRootCauseInstanceOf(SocketTimeoutException.class);
      assertThat(c.submit(cmd(Command.GET, "never"), SECOND).get())
          .as("the INCR never ran")
          .isNull();
      assertThat(c.isBroken()).isFalse();
    }
  }

  @Test
  void dataErrorsAreReplyValuesAndTheConnectionKeepsWorking() throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.defaults())) {
      c.submit(cmd(Command.SET, "s", "abc"), SECOND).get();
      Object incr = c.submit(cmd(Command.INCR, "s"), SECOND).get();
      assertThat(incr).isInstanceOf(JedisDataException.class);
      assertThat(((JedisDataException) incr).getMessage()).contains("not an integer");
      Object wrongType = c.submit(cmd(Command.LPUSH, "s", "x"), SECOND).get();
      assertThat(((JedisDataException) wrongType).getMessage()).startsWith("WRONGTYPE");
      assertThat(JedisConnectionFactory.classifyFailure((JedisDataException) wrongType))
          .isEqualTo(FailureKind.DATA);
      List<Object> mixed = c.submitAll(
              List.of(cmd(Command.SET, "n", "1"), cmd(Command.INCR, "s"), cmd(Command.INCR, "n")),
              SECOND)
          .get();
      assertThat(str(mixed.get(0))).isEqualTo("OK");
      assertThat(mixed.get(1)).isInstanceOf(JedisDataException.class);
      assertThat(mixed.get(2)).isEqualTo(2L);
      assertThat(str(c.submit(cmd(Command.GET, "s"), SECOND).get())).isEqualTo("abc");
      assertThat(c.isBroken()).isFalse();
    }
  }

  @Test
  void stateChangingCommandsAreRefusedNamingTheNode() throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.defaults())) {
      for (Command refused :
          List.of(Command.MULTI, Command.SELECT, Command.BLPOP, Command.SUBSCRIBE)) {
        Throwable t = failureOf(c.submit(cmd(refused, "x"), SECOND));
        assertThat(t)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(refused.name())
            .hasMessageContaining(name(redis));
      }
      assertThat(c.submit(cmd(Command.PING), SECOND).get()).isNotNull();
    }
  }

  @Test
  void aFullConnectionMakesSubmitsWaitThenFailNamingNodeAndLimitAndAHungNodeHoldsUpNoOtherNode()
      throws Exception {
    // No bound on writes in flight, so all four are written to the hung node (the bound: see the
    // write-coalescing tests).
    MuxSettings s = MuxSettings.builder()
        .maxInFlight(4)
        .maxWritesInFlight(0)
        .socketTimeout(Duration.ofSeconds(3))
        .build();
    try (RedisServer hung = RedisServer.start();
        RedisServer healthy = RedisServer.start();
        MuxConnection a = open(hung, s);
        MuxConnection b = open(healthy, s)) {
      hung.pause();
      try {
        long t0 = System.nanoTime();
        List<CompletableFuture<Object>> stuck = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          stuck.add(a.submit(cmd(Command.GET, "k" + i), 600 * 1_000_000L));
        }
        // Fifth: no room; it waits its 300 ms out on this thread, then fails without being sent.
        long w0 = System.nanoTime();
        CompletableFuture<Object> fifth = a.submit(cmd(Command.GET, "k4"), 300 * 1_000_000L);
        long waitedMs = (System.nanoTime() - w0) / 1_000_000;
        Throwable limit = failureOf(fifth);
        assertThat(limit)
            .isInstanceOf(InFlightLimitException.class)
            .hasMessageContaining(name(hung))
            .hasMessageContaining("4 requests in flight")
            .hasMessageContaining("limit (maxInFlight) is 4");
        assertThat(waitedMs).isBetween(290L, 1_000L);

        // Meanwhile the other node, on the same event-loop thread, answers at once.
        for (int i = 0; i < 200; i++) {
          long b0 = System.nanoTime();
          assertThat(b.submit(cmd(Command.PING), 2 * SECOND).get(2, SECONDS)).isNotNull();
          assertThat(System.nanoTime() - b0).isLessThan(500_000_000L);
        }

        // The four fail at their 600 ms timeout (not much later), as TIMEOUT.
        for (CompletableFuture<Object> f : stuck) {
          try {
            f.get(5, SECONDS);
          } catch (ExecutionException e) {
            assertThat(e.getCause())
                .isInstanceOf(JedisConnectionException.class)
                .hasMessageContaining(name(hung))
                .hasRootCauseInstanceOf(SocketTimeoutException.class);
            assertThat(JedisConnectionFactory.classifyFailure(e.getCause()))
                .isEqualTo(FailureKind.TIMEOUT);
          }
          assertThat(f).isCompletedExceptionally();
        }
        long timedOutMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(timedOutMs).isBetween(590L, 1_200L);
        // Timed out, but their replies are still owed: they keep their slots, so a new submit still
        // finds no room.
        assertThat(a.inFlight()).isEqualTo(4);
        assertThat(failureOf(a.submit(cmd(Command.GET, "k5"), 50 * 1_000_000L)))
            .isInstanceOf(InFlightLimitException.class);

        // After the socket timeout (3 s since the oldest was written) the node counts as hung:
        // closed, all failed.
        await().atMost(Duration.ofSeconds(6)).until(() -> a.failure() != null);
        assertThat(a.isBroken()).isTrue();
        long hungMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(hungMs).isBetween(2_900L, 4_500L);
        assertThat(a.failure())
            .hasMessageContaining(name(hung))
            .hasMessageContaining("socket timeout 3000 ms")
            .hasRootCauseInstanceOf(SocketTimeoutException.class);
        assertThat(JedisConnectionFactory.classifyFailure(a.failure()))
            .isEqualTo(FailureKind.TIMEOUT);
        assertThat(a.inFlight()).isZero();
        assertThat(failureOf(a.submit(cmd(Command.PING), SECOND)))
            .isInstanceOf(JedisConnectionException.class)
            .hasMessageContaining(name(hung));
        assertThat(b.isBroken()).isFalse();
      } finally {
        hung.resume();
      }
    }
  }

  @Test
  void aSentRequestFailsWhenTheClockPassesItsTimeoutNotBeforeAndItsLateReplyIsDropped()
      throws Exception {
    WatchedClock clock = new WatchedClock();
    // Ten seconds on the clock; far longer in real time than the test runs, so only the clock can
    // expire it.
    MuxSettings s = MuxSettings.builder()
        .socketTimeout(Duration.ofSeconds(30))
        .ticker(clock)
        .build();
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, s)) {
      c.submitAll(List.of(cmd(Command.SET, "one", "1"), cmd(Command.SET, "two", "2")), SECOND)
          .get();
      redis.pause();
      CompletableFuture<Object> late;
      try {
        late = c.submit(cmd(Command.GET, "one"), 10 * SECOND);
        await().atMost(Duration.ofSeconds(2)).until(() -> c.inFlight() == 1);
        clock.advanceAndAwaitTick(Duration.ofSeconds(10).minusNanos(1));
        assertThat(late).as("1 ns before its timeout").isNotDone();
        clock.advanceAndAwaitTick(Duration.ofNanos(1));
        assertThat(failureOf(late))
            .isInstanceOf(JedisConnectionException.class)
            .hasMessageContaining(
                "no reply from " + name(redis) + " to GET within its timeout (10000 ms)")
            .hasRootCauseInstanceOf(SocketTimeoutException.class);
        assertThat(c.isBroken()).as("one late request is no hung node").isFalse();
      } finally {
        redis.resume();
      }
      // The reply to GET one arrives now and must not be taken for GET two's.
      assertThat(str(c.submit(cmd(Command.GET, "two"), SECOND).get())).isEqualTo("2");
      assertThat(c.isBroken()).isFalse();
    }
  }

  /**
   * A manual clock that tells the test when the connection reads it. With a request written and
   * nothing being submitted, only the event loop's tick reads it, once per run.
   */
  static final class WatchedClock implements Ticker {
    private final ManualScheduler clock = new ManualScheduler();
    private final Semaphore reads = new Semaphore(0);

    @Override
    public long nanoTime() {
      long now = clock.nanoTime();
      reads.release();
      return now;
    }

    /**
     * Moves the clock, then returns once a whole tick has run on the new time: the second read after
     * the move began after it, and the third begins only when that tick is over (one event loop).
     */
    void advanceAndAwaitTick(Duration step) throws InterruptedException {
      clock.advance(step);
      reads.drainPermits();
      assertThat(reads.tryAcquire(3, 5, SECONDS))
          .as("the event loop's tick read the clock")
          .isTrue();
    }
  }

  static <T> CompletableFuture<T> waitDone(CompletableFuture<T> f) {
    await().atMost(Duration.ofSeconds(5)).until(f::isDone);
    return f;
  }

  @Test
  void closeFailsEverythingInFlightWithTheCountAndIsIdempotent() throws Exception {
    try (RedisServer redis = RedisServer.start()) {
      MuxConnection c = open(redis, MuxSettings.defaults());
      redis.pause();
      try {
        List<CompletableFuture<Object>> pending = new ArrayList<>();
        pending.add(c.submit(cmd(Command.GET, "k"), 10 * SECOND));
        await().atMost(Duration.ofSeconds(2)).until(() -> c.inFlight() == 1);
        for (int i = 0; i < 2; i++) {
          pending.add(c.submit(cmd(Command.GET, "k"), 10 * SECOND));
        }
        await().atMost(Duration.ofSeconds(2)).until(() -> c.load() == 3);
        c.close();
        c.close();
        // The first was written; the two queued behind it say they were not sent.
        String closed = "connection to " + name(redis) + " closed with 3 requests in flight";
        assertThat(failureOf(waitDone(pending.get(0))))
            .isInstanceOf(JedisConnectionException.class)
            .hasMessage(closed);
        for (CompletableFuture<Object> f : pending.subList(1, 3)) {
          assertThat(failureOf(waitDone(f)))
              .isInstanceOf(NotSentException.class)
              .hasMessage(closed + " (GET was queued, not sent)");
        }
        assertThat(c.isBroken()).isTrue();
        assertThat(failureOf(c.submit(cmd(Command.GET, "k"), SECOND)))
            .hasMessageContaining(name(redis));
      } finally {
        redis.resume();
      }
    }
  }

  @Test
  void aPeerCloseFailsInFlightRequestsAndTheNodeChannelsReconnectWhenTheServerIsBack()
      throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxNodeChannels node = new MuxNodeChannels(
            name(redis),
            redis.address(),
            group,
            MuxSettings.builder().connectTimeout(Duration.ofMillis(500)).build(),
            2)) {
      MuxConnection c = node.connection(null);
      assertThat(c.submit(cmd(Command.SET, "a", "1"), SECOND).get()).isNotNull();

      // CLIENT KILL from another client: an idle connection is closed by the peer.
      try (Jedis admin = new Jedis("127.0.0.1", redis.port())) {
        admin.clientKill(ClientKillParams.clientKillParams().skipMe(ClientKillParams.SkipMe.YES));
      }
      await().atMost(Duration.ofSeconds(5)).until(() -> c.failure() != null);
      assertThat(c.failure())
          .hasMessage(
              "connection to " + name(redis) + " was closed by the peer with 0 requests in flight");
      MuxConnection replaced = node.connection(null);
      assertThat(replaced).isNotSameAs(c);
      assertThat(str(replaced.submit(cmd(Command.GET, "a"), SECOND).get())).isEqualTo("1");

      // Requests in flight when the server dies fail naming the node and their count.
      redis.pause();
      List<CompletableFuture<Object>> pending = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        pending.add(replaced.submit(cmd(Command.GET, "a"), 10 * SECOND));
      }
      await().atMost(Duration.ofSeconds(2)).until(() -> replaced.load() == 3);
      redis.kill();
      for (CompletableFuture<Object> f : pending) {
        Throwable t = failureOf(waitDone(f));
        assertThat(t)
            .isInstanceOf(JedisConnectionException.class)
            .hasMessageContaining(name(redis))
            .hasMessageContaining("3 requests in flight");
        assertThat(JedisConnectionFactory.classifyFailure(t)).isEqualTo(FailureKind.CONNECTION);
      }
      assertThatThrownBy(() -> node.connection(null))
          .isInstanceOf(JedisConnectionException.class)
          .hasMessageContaining("could not connect to " + name(redis));

      redis.restart();
      MuxConnection back = node.connection(null);
      assertThat(back.submit(cmd(Command.PING), SECOND).get()).isNotNull();
      assertThat(node.openConnections()).isEqualTo(1);
    }
  }

  @Test
  void nodeChannelsOpenAnotherConnectionOnlyWhenTheOpenOnesAreBusy() throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxNodeChannels node =
            new MuxNodeChannels(name(redis), redis.address(), group, MuxSettings.defaults(), 2)) {
      MuxConnection first = node.connection(null);
      assertThat(node.connection(null)).isSameAs(first); // idle: reused
      redis.pause();
      try {
        first.submit(cmd(Command.GET, "x"), 5 * SECOND);
        MuxConnection second = node.connection(null);
        assertThat(second).isNotSameAs(first);
        assertThat(node.openConnections()).isEqualTo(2);
        // A DC_QUORUM-less level is a separate slot set: a Redis would reject DYNO_CONFIG, so only
        // "none" here.
        assertThat(node.inFlight() + node.queued()).isEqualTo(1);
      } finally {
        redis.resume();
      }
      node.close();
      node.close();
      assertThat(first.isBroken()).isTrue();
      assertThatThrownBy(() -> node.connection(null)).hasMessageContaining(name(redis));
    }
  }

  @Test
  void aCallerWokenByItsReplyFindsTheConnectionIdleSoSequentialCallsShareOneConnection()
      throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxNodeChannels node =
            new MuxNodeChannels(name(redis), redis.address(), group, MuxSettings.defaults(), 2)) {
      int sawBusy = 0;
      for (int i = 0; i < 500; i++) {
        MuxConnection c = node.connection(null);
        assertThat(c.submit(cmd(Command.SET, "seq", "v" + i), SECOND).get()).isNotNull();
        if (c.load() != 0) {
          sawBusy++;
        }
      }
      assertThat(sawBusy)
          .as("replies whose caller woke while the connection still counted the request")
          .isZero();
      assertThat(node.openConnections())
          .as("connections opened by one sequential caller")
          .isEqualTo(1);
    }
  }

  @Test
  void openingAConnectionToAFrozenNodeEndsByTheCallersDeadlineNotTheSocketTimeout()
      throws Exception {
    MuxSettings s = MuxSettings.builder().socketTimeout(Duration.ofSeconds(3)).build();
    try (RedisServer redis = RedisServer.start();
        MuxNodeChannels node = new MuxNodeChannels(name(redis), redis.address(), group, s, 2)) {
      redis.pause(); // its kernel still accepts connections; the DYNO_CONFIG sent on opening is
      // never answered
      try {
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> node.connection(ConsistencyLevel.DC_ONE, t0 + 300 * 1_000_000L))
            .isInstanceOf(JedisConnectionException.class)
            .hasMessageContaining(
                "DYNO_CONFIG:CONN_CONSISTENCY DC_ONE on the new connection to " + name(redis))
            .hasRootCauseInstanceOf(SocketTimeoutException.class)
            .satisfies(e -> assertThat(JedisConnectionFactory.classifyFailure(e))
                .isEqualTo(FailureKind.TIMEOUT));
        long ms = (System.nanoTime() - t0) / 1_000_000;
        // Well under the socket timeout; loose above the deadline for a loaded machine.
        assertThat(ms)
            .as("ms to give up opening, deadline 300 ms, socket timeout 3000 ms")
            .isBetween(290L, 2_000L);
        assertThat(node.openConnections()).isZero();

        // Without a deadline of its own (a borrow), the socket timeout still bounds it.
        long t1 = System.nanoTime();
        assertThatThrownBy(() -> node.connection(ConsistencyLevel.DC_ONE))
            .isInstanceOf(JedisConnectionException.class)
            .hasRootCauseInstanceOf(SocketTimeoutException.class);
        assertThat((System.nanoTime() - t1) / 1_000_000).isBetween(2_900L, 4_500L);
      } finally {
        redis.resume();
      }
    }
  }

  @Test
  void pipelinesKeepOrderAndLeaveContiguouslyUnderConcurrency() throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.defaults())) {
      int threads = 16;
      int rounds = 50;
      int size = 10;
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      AtomicLong checked = new AtomicLong();
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int id = t;
        done.add(pool.submit(() -> {
          for (int r = 0; r < rounds; r++) {
            List<CommandArguments> sets = new ArrayList<>();
            List<CommandArguments> gets = new ArrayList<>();
            List<CommandArguments> incrs = new ArrayList<>();
            for (int i = 0; i < size; i++) {
              sets.add(cmd(Command.SET, "p_" + id + "_" + i, "v_" + id + "_" + r + "_" + i));
              gets.add(cmd(Command.GET, "p_" + id + "_" + i));
              incrs.add(cmd(Command.INCR, "shared"));
            }
            c.submitAll(sets, 5 * SECOND).get();
            List<Object> got = c.submitAll(gets, 5 * SECOND).get();
            for (int i = 0; i < size; i++) {
              assertThat(str(got.get(i))).isEqualTo("v_" + id + "_" + r + "_" + i);
            }
            // Every thread increments one shared counter: consecutive values prove nothing came in
            // between.
            List<Object> n = c.submitAll(incrs, 5 * SECOND).get();
            for (int i = 1; i < size; i++) {
              assertThat((Long) n.get(i)).isEqualTo((Long) n.get(0) + i);
            }
            checked.incrementAndGet();
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(60, SECONDS);
      }
      pool.shutdown();
      assertThat(checked.get()).isEqualTo((long) threads * rounds);
      assertThat(c.submit(cmd(Command.GET, "shared"), SECOND).get())
          .satisfies(
              v -> assertThat(str(v)).isEqualTo(String.valueOf((long) threads * rounds * size)));
    }
  }

  @Test
  void queueTimeIsReportedPerWrittenRequest() throws Exception {
    AtomicLong written = new AtomicLong();
    AtomicLong commands = new AtomicLong();
    MuxListener l = new MuxListener() {
      @Override
      public void written(String node, int n, long queuedNanos) {
        assertThat(queuedNanos).isNotNegative();
        written.incrementAndGet();
        commands.addAndGet(n);
      }
    };
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.builder().listener(l).build())) {
      c.submit(cmd(Command.PING), SECOND).get();
      c.submitAll(List.of(cmd(Command.PING), cmd(Command.PING)), SECOND).get();
      assertThat(written.get()).isEqualTo(2);
      assertThat(commands.get()).isEqualTo(3);
    }
  }

  @Test
  void aReplyOverTheBulkLimitClosesTheConnectionNamingTheNode() throws Exception {
    try (RedisServer redis = RedisServer.start();
        MuxConnection c = open(redis, MuxSettings.builder().maxBulkBytes(1000).build())) {
      c.submit(cmd(Command.SET, "big", "x".repeat(2000)), SECOND).get();
      Throwable t = failureOf(waitDone(c.submit(cmd(Command.GET, "big"), SECOND)));
      assertThat(t)
          .hasMessageContaining("malformed reply from " + name(redis))
          .hasMessageContaining("bulk string length 2000 (limit 1000 bytes)");
      assertThat(c.isBroken()).isTrue();
    }
  }

  @Test
  void authIsSentAloneOnConnectAndRefusedCredentialsFailTheOpenNamingTheNode() throws Exception {
    try (RedisServer redis = RedisServer.start("--requirepass", "s3cret")) {
      try (MuxConnection c =
          open(redis, MuxSettings.builder().auth(null, "s3cret").build())) {
        assertThat(str(c.submit(cmd(Command.SET, "a", "1"), SECOND).get())).isEqualTo("OK");
      }
      try (MuxConnection c =
          open(redis, MuxSettings.builder().auth("default", "s3cret").build())) {
        assertThat(str(c.submit(cmd(Command.GET, "a"), SECOND).get())).isEqualTo("1");
      }
      assertThatThrownBy(() ->
              open(redis, MuxSettings.builder().auth(null, "not-the-password").build()))
          .isInstanceOf(JedisAccessControlException.class)
          .hasMessageContaining(name(redis) + " refused the credentials")
          .hasMessageNotContaining("not-the-password");
      // Without AUTH every command gets NOAUTH: a value, not a closed connection.
      try (MuxConnection c = open(redis, MuxSettings.defaults())) {
        assertThat(c.submit(cmd(Command.GET, "a"), SECOND).get())
            .isInstanceOf(JedisAccessControlException.class);
        assertThat(c.isBroken()).isFalse();
      }
    }
  }

  @Test
  void aConnectToNothingFailsNamingTheNode() throws Exception {
    RedisServer redis = RedisServer.start();
    redis.close();
    assertThatThrownBy(() -> open(redis, MuxSettings.defaults()))
        .isInstanceOf(JedisConnectionException.class)
        .hasMessageContaining("could not connect to " + name(redis));
  }
}
