package io.dyno.core.health.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.netflix.spectator.api.DefaultRegistry;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.testing.ManualScheduler;
import io.dyno.core.topology.NodeState;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Node states learnt from the cluster, on a manual clock: a node not NORMAL is out of rotation for
 * every call from the first ask (made before the client serves), is back once it reports NORMAL,
 * keeps its last state through a few failed asks, and is judged by its connections alone after
 * {@link NodeStates#FORGET_AFTER} failures in a row.
 */
class NodeStatesTest {
  static final Host A =
      Host.builder("127.0.0.1", 7001).rack("rack1").datacenter("dc1").build();
  static final Host B =
      Host.builder("127.0.0.1", 7002).rack("rack2").datacenter("dc1").build();
  static final Duration EVERY = Duration.ofSeconds(1);

  final ManualScheduler clock = new ManualScheduler();
  final DynoConfig cfg = DynoConfig.builder().applicationName("test").build();
  final HealthTracker health = new HealthTracker(
      () -> cfg,
      clock,
      clock,
      Runnable::run,
      h -> 0L,
      h -> {},
      new Meters(new DefaultRegistry(), "t"));
  /** What each node's admin port answers now; absent: the ask fails. */
  final Map<Host, NodeState> answers = new ConcurrentHashMap<>();

  final NodeStates states = new NodeStates(
      h -> {
        NodeState s = answers.get(h);
        if (s == null) {
          throw new IOException("connection refused");
        }
        return s;
      },
      () -> List.of(A, B),
      health,
      clock,
      Runnable::run);

  @Test
  void aNodeNotNormalIsOutFromTheFirstAskAndBackOnceItReportsNormal() {
    answers.put(A, NodeState.STANDBY);
    answers.put(B, NodeState.NORMAL);
    states.start(EVERY, Duration.ofSeconds(1));
    assertThat(health.isUp(A)).isFalse();
    assertThat(health.isPreferred(A)).isFalse();
    assertThat(health.whyOut(A))
        .isEqualTo("is in Dynomite state STANDBY (it serves no reads, and drops or holds writes)");
    assertThat(health.isUp(B)).isTrue();
    assertThat(health.downCount()).isEqualTo(1);

    answers.put(A, NodeState.WRITES_ONLY);
    clock.advance(EVERY);
    assertThat(health.state(A)).isEqualTo(NodeState.WRITES_ONLY);
    assertThat(health.isUp(A)).isFalse();

    answers.put(A, NodeState.NORMAL);
    clock.advance(EVERY);
    assertThat(health.isUp(A)).isTrue();
    assertThat(health.isPreferred(A)).isTrue();
    assertThat(health.whyOut(A)).isNull();
    assertThat(health.downCount()).isZero();
  }

  @Test
  void aStateThatCannotBeReadIsKeptThroughAFewFailedAsksThenForgotten() {
    answers.put(A, NodeState.STANDBY);
    states.start(EVERY, Duration.ofSeconds(1));
    assertThat(health.isUp(A)).isFalse();
    assertThat(health.isUp(B)).as("never answered: judged by its connections").isTrue();

    answers.remove(A);
    for (int i = 1; i < NodeStates.FORGET_AFTER; i++) {
      clock.advance(EVERY);
      assertThat(health.state(A)).as("after %d failed asks", i).isEqualTo(NodeState.STANDBY);
    }
    clock.advance(EVERY);
    assertThat(health.state(A)).isEqualTo(NodeState.NORMAL);
    assertThat(health.isUp(A)).isTrue();
  }

  @Test
  void closedItAsksNoMore() {
    answers.put(A, NodeState.NORMAL);
    states.start(EVERY, Duration.ofSeconds(1));
    states.close();
    states.close();
    answers.put(A, NodeState.STANDBY);
    clock.advance(EVERY.multipliedBy(3));
    assertThat(health.isUp(A)).isTrue();
  }

  @Test
  void dynomitesAnswerIsParsedAndAnythingElseIsRefusedByName() {
    assertThat(NodeState.parse("State: NORMAL\n")).isEqualTo(NodeState.NORMAL);
    assertThat(NodeState.parse("State: WRITES_ONLY\n")).isEqualTo(NodeState.WRITES_ONLY);
    assertThat(NodeState.parse("State: Unknown\n")).isEqualTo(NodeState.OTHER);
    assertThat(NodeState.STANDBY.serves()).isFalse();
    assertThat(NodeState.NORMAL.serves()).isTrue();
    assertThatThrownBy(() -> NodeState.parse("OK\r\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a /state/get_state answer")
        .hasMessageContaining("'OK'");
  }
}
