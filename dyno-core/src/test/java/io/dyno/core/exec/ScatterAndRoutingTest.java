package io.dyno.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.DeadlineExceededException;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.Host;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.DynoConfigBuilder;
import io.dyno.core.config.RetryPolicy;
import io.dyno.core.engine.internal.DynoEngine;
import io.dyno.core.engine.internal.ScatterPart;
import io.dyno.core.engine.internal.SplitOperation;
import io.dyno.core.exec.FakeFactory.Fault;
import io.dyno.core.routing.LoadBalancing;
import io.dyno.core.routing.Topology;
import io.dyno.core.testing.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Routing decided once (route / routeKeyless) and the scatter of several parts, on fake connections. */
class ScatterAndRoutingTest {
  static final Host A1 = TestTopology.host("rack1", 7101);
  static final Host A2 = TestTopology.host("rack1", 7102);
  static final Host B1 = TestTopology.host("rack2", 7201);
  static final Host B2 = TestTopology.host("rack2", 7202);

  final ManualScheduler clock = new ManualScheduler();
  final FakeFactory fakes = new FakeFactory();
  final AtomicReference<Topology> topology = new AtomicReference<>(TestTopology.builder("rack1")
      .node(A1, 0)
      .node(A2, Long.MAX_VALUE / 2)
      .node(B1, 0)
      .node(B2, Long.MAX_VALUE / 2)
      .build());
  final List<String> events = new CopyOnWriteArrayList<>();
  DynoEngine<FakeFactory.Conn> engine;

  DynoEngine<FakeFactory.Conn> engine(DynoConfigBuilder config) {
    engine = DynoEngine.builder(fakes)
        .config(config.applicationName("scatter").build())
        .topology(topology::get)
        .registry(new DefaultRegistry())
        .scheduler(clock)
        .ioExecutor(Runnable::run)
        .random(() -> 0.5)
        .sleeper(nanos -> clock.advance(Duration.ofNanos(nanos)))
        .registerMBean(false)
        .build();
    return engine;
  }

  @AfterEach
  void close() {
    if (engine != null) {
      engine.close();
    }
  }

  /** A part that logs its send and receive, and answers with the node it ran on. */
  ScatterPart<FakeFactory.Conn, String> part(String name, List<Host> candidates) {
    return new ScatterPart<>(
        engine.call(name).on(candidates).idempotent(true).build(), new SplitOperation<>() {
          @Override
          public void send(FakeFactory.Conn c) throws Exception {
            c.call(name);
            events.add("send " + name + "@" + c.host().port());
          }

          @Override
          public String receive(FakeFactory.Conn c) {
            events.add("receive " + name + "@" + c.host().port());
            return name + "@" + c.host().port();
          }
        });
  }

  @Test
  void everyPartIsSentBeforeAnyReplyIsRead() {
    engine(DynoConfig.builder());
    var a = part("a", List.of(A1, B1));
    var b = part("b", List.of(A2, B2));
    var c = part("c", List.of(B1, A1));
    engine.scatter(List.of(c, a, b), CallOptions.defaults());
    assertThat(List.of(a.result(), b.result(), c.result()))
        .containsExactly("a@7101", "b@7102", "c@7201");
    int lastSend = 0;
    int firstReceive = Integer.MAX_VALUE;
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i).startsWith("send")) lastSend = i;
      else firstReceive = Math.min(firstReceive, i);
    }
    assertThat(lastSend).as("events %s", events).isLessThan(firstReceive);
    assertThat(events).hasSize(6);
  }

  @Test
  void aFailingPartFailsOverOnItsOwnAndNeverFailsTheOthers() {
    engine(DynoConfig.builder().retryPolicy(RetryPolicy.retryNTimes(1)));
    fakes.node(A1).script(Fault.IO);
    fakes.node(A2).always = Fault.IO;
    var a = part("a", List.of(A1, B1)); // fails on A1, served by B1
    var b = part("b", List.of(A2)); // only A2: fails for good
    var c = part("c", List.of(B2));
    engine.scatter(List.of(a, b, c), CallOptions.defaults());
    assertThat(a.result()).isEqualTo("a@7201");
    assertThat(b.failure())
        .isInstanceOf(DynoConnectionException.class)
        .hasMessageContaining("7102");
    assertThat(c.result()).isEqualTo("c@7202");
  }

  @Test
  void theDeadlineIsForTheWholeScatter() {
    engine(DynoConfig.builder());
    ScatterPart<FakeFactory.Conn, String> slow = new ScatterPart<>(
        engine.call("slow").on(List.of(A1)).idempotent(true).build(), new SplitOperation<>() {
          @Override
          public void send(FakeFactory.Conn c) {
            clock.advance(Duration.ofMillis(150)); // the node takes 150 ms of a 100 ms deadline
          }

          @Override
          public String receive(FakeFactory.Conn c) {
            return "slow";
          }
        });
    var later = part("later", List.of(B1));
    engine.scatter(
        List.of(slow, later), CallOptions.defaults().withDeadline(Duration.ofMillis(100)));
    assertThat(slow.result()).isEqualTo("slow");
    assertThat(later.failure())
        .isInstanceOf(DeadlineExceededException.class)
        .hasMessageContaining("later: deadline of 100 ms passed after 0 run(s)");
    assertThat(fakes.node(B1).calls).isEmpty();
  }

  @Test
  void candidatesPastTheSixtyFourthAreUsed() {
    engine(DynoConfig.builder().maxFailoverCount(64).retryPolicy(RetryPolicy.runOnce()));
    List<Host> many = new ArrayList<>();
    for (int i = 0; i < 70; i++) {
      Host h = TestTopology.host("rack" + i, 8000 + i);
      many.add(h);
      fakes.node(h).refuseConnect = i < 64;
    }
    String served =
        engine.execute(engine.call("GET").on(many).idempotent(true).build(), c -> c.call("GET"));
    assertThat(served).isEqualTo("GET@8064");
  }

  @Test
  void keylessRequestsRotateOverTheLocalRackThenTheOthers() {
    engine(DynoConfig.builder());
    Set<Host> firsts = new HashSet<>();
    for (int i = 0; i < 4; i++) {
      List<Host> r = engine.routeKeyless();
      firsts.add(r.get(0));
      assertThat(r).hasSize(4);
      assertThat(r.subList(0, 2)).containsExactlyInAnyOrder(A1, A2);
    }
    assertThat(firsts).containsExactlyInAnyOrder(A1, A2);
  }

  @Test
  void tokenAwareRoutesAKeyToItsOwnersLocalRackFirst() {
    engine(DynoConfig.builder());
    List<Host> r = engine.route("some-key");
    assertThat(r).isEqualTo(topology.get().replicas("some-key"));
    assertThat(r.get(0).rack()).isEqualTo("rack1");
    assertThat(engine.route("some-key".getBytes())).isEqualTo(r);
  }

  @Test
  void roundRobinRoutesKeysLikeKeylessRequests() {
    engine(DynoConfig.builder().lbStrategy(LoadBalancing.ROUND_ROBIN));
    Set<Host> firsts = new HashSet<>();
    for (int i = 0; i < 4; i++) {
      firsts.add(engine.route("same-key").get(0));
    }
    assertThat(firsts).containsExactlyInAnyOrder(A1, A2);
  }

  @Test
  void anEmptyCandidateListIsRefusedNamingTheCommand() {
    engine(DynoConfig.builder());
    assertThatThrownBy(() -> engine.execute(
            engine.call("GET").on(List.of()).idempotent(true).build(), c -> c.call("GET")))
        .isInstanceOf(NoAvailableHostsException.class)
        .hasMessageContaining("GET");
    assertThatThrownBy(
            () -> new ScatterPart<>(engine.call("MGET").on(List.<Host>of()).build(), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("MGET");
  }
}
