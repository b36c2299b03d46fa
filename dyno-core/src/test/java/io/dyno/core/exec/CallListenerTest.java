package io.dyno.core.exec;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.DynoConfigBuilder;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.engine.internal.DynoEngine;
import io.dyno.core.events.AttemptOutcome;
import io.dyno.core.events.AttemptReason;
import io.dyno.core.events.CallListener;
import io.dyno.core.events.LoggingCallListener;
import io.dyno.core.exec.FakeFactory.Fault;
import io.dyno.core.exec.internal.Engine;
import io.dyno.core.routing.Topology;
import io.dyno.core.testing.ManualScheduler;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The events of {@link CallListener}: what each attempt's reason and outcome are on both call
 * paths, read off what the engine did (fake connections, a manual clock, an I/O queue the test runs).
 */
class CallListenerTest {
  static final Host A = TestTopology.host("rack1", 7001);
  static final Host B = TestTopology.host("rack2", 7002);
  static final Host C = TestTopology.host("rack3", 7003);

  final ManualScheduler clock = new ManualScheduler();
  final FakeFactory fakes = new FakeFactory();
  final Queue<Runnable> io = new ArrayDeque<>();
  /** Off: the engine's I/O tasks (a connection opened in place of a broken one) run at once. On: the test runs them. */
  volatile boolean queueIo;

  final Topology topology =
      TestTopology.builder("rack1").node(A, 0).node(B, 0).node(C, 0).build();
  final List<String> events = new CopyOnWriteArrayList<>();
  Engine<FakeFactory.Conn> engine;

  /** Writes every event as one short line; one instance serves every call (the tests run one at a time). */
  final CallListener recorder = new CallListener() {
    @Override
    public void callStart(String command, Object key, List<Host> candidates) {
      List<Integer> ports = new ArrayList<>();
      candidates.forEach(h -> ports.add(h.port()));
      events.add("start " + command + " " + key + " " + ports);
    }

    @Override
    public void attemptStart(int attempt, Host node, AttemptReason reason) {
      events.add("attempt " + attempt + " " + node.port() + " " + reason);
    }

    @Override
    public void attemptEnd(int attempt, Host node, AttemptOutcome outcome, Throwable failure) {
      events.add("attempt " + attempt + " " + node.port() + " " + outcome);
    }

    @Override
    public void callEnd(Throwable failure, int attempts, long elapsedNanos) {
      events.add("end " + (failure == null ? "ok" : failure.getClass().getSimpleName()) + " "
          + attempts + " attempts " + Duration.ofNanos(elapsedNanos).toMillis() + " ms");
    }
  };

  void engine(DynoConfigBuilder config, CallListener.Factory... listeners) {
    DynoEngine.Builder<FakeFactory.Conn> b = DynoEngine.builder(fakes)
        .config(config.build())
        .topology(() -> topology)
        .registry(new DefaultRegistry())
        .scheduler(clock)
        .random(() -> 0.5)
        .registerMBean(false)
        .ioExecutor(r -> {
          if (queueIo) {
            io.add(r);
          } else {
            r.run();
          }
        })
        .sleeper(nanos -> clock.advance(Duration.ofNanos(nanos)));
    for (CallListener.Factory f : listeners) {
      b.listener(f);
    }
    engine = (Engine<FakeFactory.Conn>) b.build();
  }

  static DynoConfigBuilder config() {
    return DynoConfig.builder().applicationName("events").retryPolicy(RetryPolicy.retryNTimes(2));
  }

  String get() {
    return engine.execute(engine.call("GET").key("k").idempotent(true).build(), c -> c.call("GET"));
  }

  void runIo() {
    for (Runnable r; (r = io.poll()) != null; ) {
      r.run();
    }
  }

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
    }
  }

  @Test
  void aBlockingCallThatFailsOverSaysWhereEachAttemptWentAndHowItEnded() {
    engine(config(), () -> recorder);
    fakes.node(A).script(Fault.IO);
    assertThat(get()).isEqualTo("GET@7002");
    assertThat(events)
        .containsExactly(
            "start GET k [7001, 7002, 7003]",
            "attempt 1 7001 PREFERRED",
            "attempt 1 7001 CONNECTION_ERROR",
            "attempt 2 7002 FAILOVER",
            "attempt 2 7002 SUCCESS",
            "end ok 2 attempts 0 ms");
  }

  @Test
  void aRerunOnTheSameNodeIsARetryAfterASentFailureAndAResendAfterAnUnsentOne() {
    engine(config(), () -> recorder);
    fakes.node(A).script(Fault.TIMEOUT, Fault.CLOSED_BEFORE_SENT);
    String reply = engine.execute(
        engine.call("GET").key("k").on(List.of(A)).idempotent(true).build(), c -> c.call("GET"));
    assertThat(reply).isEqualTo("GET@7001");
    assertThat(events)
        .containsExactly(
            "start GET k [7001]",
            "attempt 1 7001 PREFERRED",
            "attempt 1 7001 TIMEOUT",
            "attempt 2 7001 RETRY",
            "attempt 2 7001 NOT_SENT",
            "attempt 3 7001 SAME_NODE_RESEND",
            "attempt 3 7001 SUCCESS",
            "end ok 3 attempts 0 ms");
  }

  @Test
  void aCallThatGivesUpEndsWithTheErrorTheCallerGets() {
    engine(config(), () -> recorder);
    fakes.node(A).always = Fault.REPLICA;
    assertThatThrownBy(() -> engine.execute(
            engine.call("GET").on(List.of(A)).idempotent(true).build(), c -> c.call("GET")))
        .isInstanceOf(DynoConnectionException.class);
    assertThat(events)
        .containsExactly(
            "start GET null [7001]",
            "attempt 1 7001 PREFERRED",
            "attempt 1 7001 REPLICA_ERROR",
            "attempt 2 7001 RETRY",
            "attempt 2 7001 REPLICA_ERROR",
            "attempt 3 7001 RETRY",
            "attempt 3 7001 REPLICA_ERROR",
            "end DynoConnectionException 3 attempts 0 ms");
  }

  @Test
  void aFirstAttemptPastAPreferredNodeThatIsDownSaysSo() {
    engine(config().healthErrorThreshold(1), () -> recorder);
    engine.health().failure(A);
    assertThat(get()).isEqualTo("GET@7002");
    assertThat(events).containsSequence("attempt 1 7002 PREFERRED_DOWN", "attempt 1 7002 SUCCESS");
  }

  @Test
  void aFirstAttemptPastAPreferredNodeSteeredAwayFromForItsLatencySaysSteeredNotDown() {
    List<String> lines = new CopyOnWriteArrayList<>();
    engine(config(), () -> recorder, LoggingCallListener.to(lines::add));
    engine.health().steer(A, 5_000_000L); // in rotation, but slower than its replicas lately
    assertThat(get()).isEqualTo("GET@7002");
    assertThat(events).containsSequence("attempt 1 7002 STEERED", "attempt 1 7002 SUCCESS");
    assertThat(lines)
        .singleElement(as(InstanceOfAssertFactories.STRING))
        .contains("served by 127.0.0.1:7002 (dc1/rack2) on attempt 1: preferred 127.0.0.1:7001"
            + " (dc1/rack1) is steered away from for latency");
  }

  @Test
  void aFirstAttemptPastANodeMarkedDownSaysSoInTheLogLine() {
    List<String> lines = new CopyOnWriteArrayList<>();
    engine(config().healthErrorThreshold(1), () -> recorder, LoggingCallListener.to(lines::add));
    engine.health().failure(A);
    assertThat(get()).isEqualTo("GET@7002");
    assertThat(events).contains("attempt 1 7002 PREFERRED_DOWN");
    assertThat(lines)
        .singleElement(as(InstanceOfAssertFactories.STRING))
        .contains("on attempt 1: preferred 127.0.0.1:7001 (dc1/rack1) is marked down");
  }

  @Test
  void aKeyLastWrittenInAnotherRackIsReadThereFirstAsItsRememberedRack() {
    List<String> lines = new CopyOnWriteArrayList<>();
    engine(
        config().healthErrorThreshold(1).healthCoolDown(Duration.ofSeconds(1)),
        () -> recorder,
        LoggingCallListener.to(lines::add));
    engine.health().failure(A);
    // The owner in rack1 is away: the write is served by rack2, which the key is remembered by.
    String set =
        engine.execute(engine.call("SET").key("k").idempotent(true).build(), c -> c.call("SET"));
    assertThat(set).isEqualTo("SET@7002");
    for (int i = 0; i < 200 && !engine.health().isUp(A); i++) {
      clock.advance(Duration.ofMillis(250)); // re-admission probes, on the manual clock
    }
    assertThat(engine.health().isUp(A)).as("rack1's owner back in rotation").isTrue();
    events.clear();
    lines.clear();

    assertThat(get()).isEqualTo("GET@7002");
    assertThat(events)
        .containsExactly(
            "start GET k [7002, 7001, 7003]",
            "attempt 1 7002 REMEMBERED_RACK",
            "attempt 1 7002 SUCCESS",
            "end ok 1 attempts 0 ms");
    assertThat(lines)
        .containsExactly("GET \"k\" served by 127.0.0.1:7002 (dc1/rack2) on attempt 1:"
            + " the key's remembered rack, its last write was served here [0.0 ms]");
  }

  @Test
  void aHedgedReadIsAnAttemptOfItsOwnAndTheLoserMayEndAfterTheCall() {
    engine(config().hedgeReads(HedgePolicy.after(Duration.ofMillis(5))), () -> recorder);
    queueIo = true;
    fakes.node(A).hold = true;
    CompletableFuture<String> f = engine.executeAsync(
        engine.call("GET").key("k").on(engine.route("k")).idempotent(true).build(),
        c -> c.submit("GET"));
    clock.advance(Duration.ofMillis(5));
    runIo();
    assertThat(f).isCompletedWithValue("GET@7002");
    fakes.node(A).held.get(0).complete("GET@7001");
    assertThat(events)
        .containsExactly(
            "start GET k [7001, 7002, 7003]",
            "attempt 1 7001 PREFERRED",
            "attempt 2 7002 HEDGE",
            "attempt 2 7002 SUCCESS",
            "end ok 2 attempts 5 ms",
            "attempt 1 7001 DISCARDED");
  }

  @Test
  void anAsynchronousFailoverAfterAFailedReplyIsReportedAsTheBlockingOneIs() {
    engine(config(), () -> recorder);
    queueIo = true;
    fakes.node(A).hold = true;
    CompletableFuture<String> f = engine.executeAsync(
        engine.call("GET").key("k").on(engine.route("k")).idempotent(true).build(),
        c -> c.submit("GET"));
    fakes.node(A).held.get(0).completeExceptionally(new IOException("connection reset"));
    runIo();
    assertThat(f).isCompletedWithValue("GET@7002");
    assertThat(events)
        .containsExactly(
            "start GET k [7001, 7002, 7003]",
            "attempt 1 7001 PREFERRED",
            "attempt 1 7001 CONNECTION_ERROR",
            "attempt 2 7002 FAILOVER",
            "attempt 2 7002 SUCCESS",
            "end ok 2 attempts 0 ms");
  }

  @Test
  void aListenerThatThrowsChangesNothingForTheCall() {
    CallListener broken = new CallListener() {
      @Override
      public void attemptStart(int attempt, Host node, AttemptReason reason) {
        throw new IllegalStateException("listener bug");
      }

      @Override
      public void callEnd(Throwable failure, int attempts, long elapsedNanos) {
        throw new IllegalStateException("listener bug");
      }
    };
    engine(config(), () -> broken, () -> recorder);
    fakes.node(A).script(Fault.IO);
    assertThat(get()).isEqualTo("GET@7002");
    assertThat(events).contains("attempt 2 7002 FAILOVER", "end ok 2 attempts 0 ms");
  }

  @Test
  void theLogLineNamesTheServingNodeAndWhyWithTheKeyEscaped() {
    List<String> lines = new CopyOnWriteArrayList<>();
    engine(config(), LoggingCallListener.to(lines::add));
    fakes.node(A).script(Fault.IO);
    String reply = engine.execute(
        engine
            .call("GET")
            .key(new byte[] {'u', ':', 0, (byte) 0xff})
            .idempotent(true)
            .build(),
        c -> c.call("GET"));
    assertThat(reply).isEqualTo("GET@7002");
    assertThat(lines)
        .containsExactly("GET \"u:\\x00\\xff\" served by 127.0.0.1:7002 (dc1/rack2) on attempt 2:"
            + " failover from 127.0.0.1:7001 (dc1/rack1) after connection reset by 127.0.0.1:7001 (connection error)"
            + " [0.0 ms]");
  }

  @Test
  void theLogLineSaysARerunIsARetryOrAResendAndAHedgeIsAHedge() {
    List<String> lines = new CopyOnWriteArrayList<>();
    engine(
        config().hedgeReads(HedgePolicy.after(Duration.ofMillis(5))),
        () -> recorder,
        LoggingCallListener.to(lines::add));
    fakes.node(A).script(Fault.TIMEOUT);
    engine.execute(
        engine.call("GET").key("k").on(List.of(A)).idempotent(true).build(), c -> c.call("GET"));
    fakes.node(A).script(Fault.CLOSED_BEFORE_SENT);
    engine.execute(
        engine.call("GET").key("k").on(List.of(A)).idempotent(true).build(), c -> c.call("GET"));
    queueIo = true;
    fakes.node(A).hold = true;
    CompletableFuture<String> hedged = engine.executeAsync(
        engine.call("GET").key("k").on(engine.route("k")).idempotent(true).build(),
        c -> c.submit("GET"));
    clock.advance(Duration.ofMillis(5));
    runIo();
    assertThat(hedged).isCompletedWithValue("GET@7002");
    assertThat(lines).hasSize(3);
    assertThat(lines.get(0))
        .contains("served by 127.0.0.1:7001 (dc1/rack1) on attempt 2: retry on the same node after")
        .contains("(timeout)");
    assertThat(lines.get(1))
        .contains("on attempt 2: resent to the same node after")
        .contains("(before sending)");
    assertThat(lines.get(2))
        .contains("served by 127.0.0.1:7002 (dc1/rack2) on attempt 2: hedged read,"
            + " 127.0.0.1:7001 (dc1/rack1) had not answered yet");
    assertThat(events)
        .contains(
            "attempt 2 7001 RETRY", "attempt 2 7001 SAME_NODE_RESEND", "attempt 2 7002 HEDGE");
  }

  @Test
  void theDebugLogIsNotFollowedWhileItsLoggerIsNotDebugEnabled() {
    // The tests log at WARN (slf4j-simple): the line is off, and a call asks for nothing more.
    assertThat(LoggingCallListener.debugEnabled()).isFalse();
    assertThat(LoggingCallListener.debugLog().create()).isSameAs(CallListener.NONE);
  }
}
