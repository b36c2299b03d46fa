package io.dyno.core.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.exec.FakeFactory.Fault;
import io.dyno.core.metrics.DynoMetrics;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The call contract, part 3: what surrounds the calls — node health, consistency, datastore mode,
 * topology changes, pool upkeep, start-up and close — on every path a command can take
 * ({@link CallContract.Mode}).
 */
@ParameterizedClass
@EnumSource(CallContract.Mode.class)
class EngineContractTest extends CallContract {

  EngineContractTest(Mode mode) {
    super(mode);
  }

  @Test
  void aNodeThatKeepsFailingIsSkippedThenProbedAndTakesTrafficAgainByItself() {
    engine(config()
        .healthErrorThreshold(3)
        .healthCoolDown(Duration.ofSeconds(5))
        .healthMaxCoolDown(Duration.ofSeconds(60))
        .healthHalfLife(Duration.ofSeconds(10)));
    fakes.node(A).script(Fault.IO, Fault.IO, Fault.IO);
    for (int i = 0; i < 3; i++) {
      assertThat(get()).isEqualTo("GET@7002");
    }
    assertThat(engine.health().isUp(A)).isFalse();
    int callsOnA = fakes.node(A).calls.size();
    assertThat(get()).isEqualTo("GET@7002"); // skipped, not even tried
    assertThat(fakes.node(A).calls).hasSize(callsOnA);

    fakes.node(A).refuseConnect = true;
    clock.advance(Duration.ofSeconds(5)); // first probe fails: next one in 10 s
    assertThat(engine.health().isUp(A)).isFalse();
    fakes.node(A).refuseConnect = false;
    clock.advance(Duration.ofSeconds(9));
    assertThat(engine.health().isUp(A)).isFalse();
    clock.advance(Duration.ofSeconds(1)); // a good probe: one of the three in a row it needs
    assertThat(engine.health().isUp(A)).isFalse();
    clock.advance(Duration.ofMillis(249)); // a good probe is followed a quarter second later
    assertThat(engine.health().isUp(A)).isFalse();
    clock.advance(Duration.ofMillis(1));
    assertThat(engine.health().isUp(A)).isFalse();
    clock.advance(Duration.ofMillis(250));
    assertThat(engine.health().isUp(A)).isTrue();
    assertThat(get()).isEqualTo("GET@7001");
    assertThat(counter(DynoMetrics.NODE_HEALTH, "node", A.id(), "state", "down"))
        .isEqualTo(1);
    assertThat(counter(DynoMetrics.NODE_HEALTH, "node", A.id(), "state", "up")).isEqualTo(1);
  }

  @Test
  void errorsSpreadOutInTimeDecayAndDoNotTakeANodeDown() {
    engine(config().healthErrorThreshold(3).healthHalfLife(Duration.ofSeconds(10)));
    for (int i = 0; i < 10; i++) {
      fakes.node(A).script(Fault.IO);
      assertThat(get()).isEqualTo("GET@7002");
      clock.advance(Duration.ofSeconds(20)); // the score halves twice between errors
    }
    assertThat(engine.health().isUp(A)).isTrue();
    assertThat(engine.health().score(A)).isLessThan(1.0);
  }

  @Test
  void consistencyIsSentOnlyWhenTheConnectionsLevelDiffers() {
    engine(config());
    get();
    FakeFactory.Conn conn =
        fakes.opened.stream().filter(c -> c.host().equals(A)).findFirst().orElseThrow();
    assertThat(conn.consistencySent).isEmpty(); // server default: nothing sent

    CallOptions quorum = CallOptions.defaults().withConsistency(ConsistencyLevel.DC_QUORUM);
    get(quorum);
    get(quorum);
    assertThat(conn.consistencySent).containsExactly(ConsistencyLevel.DC_QUORUM);
    get(); // back to the default: Dynomite's DC_ONE, once
    get();
    assertThat(conn.consistencySent)
        .containsExactly(ConsistencyLevel.DC_QUORUM, ConsistencyLevel.DC_ONE);
    assertThat(counter(DynoMetrics.CONSISTENCY_SET, "level", "DC_QUORUM")).isEqualTo(1);
  }

  @Test
  void clientDefaultConsistencyIsSetOncePerConnection() {
    engine(config().defaultConsistency(ConsistencyLevel.DC_SAFE_QUORUM));
    for (int i = 0; i < 5; i++) {
      get();
    }
    FakeFactory.Conn conn =
        fakes.opened.stream().filter(c -> c.host().equals(A)).findFirst().orElseThrow();
    assertThat(conn.consistencySent).containsExactly(ConsistencyLevel.DC_SAFE_QUORUM);
  }

  @Test
  void datastoreModeConnectsToTheRedisPortAndRejectsConsistency() {
    Host d = TestTopology.host("rack1", 7101, 7201);
    topology.set(TestTopology.builder("rack1").node(d, 0).version(4).build());
    engine(config().datastoreMode(true));
    assertThat(get()).isEqualTo("GET@7201");
    assertThatThrownBy(
            () -> get(CallOptions.defaults().withConsistency(ConsistencyLevel.DC_QUORUM)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("datastore mode")
        .hasMessageContaining("DC_QUORUM");
    assertThatThrownBy(() -> DynoConfig.builder()
            .datastoreMode(true)
            .defaultConsistency(ConsistencyLevel.DC_ONE)
            .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("defaultConsistency");
  }

  @Test
  void aNodeLeavingTheTopologyIsDrainedInFlightCallsFinishThenItsConnectionsClose() {
    engine(config());
    String served = call("GET", "k", true, CallOptions.defaults(), c -> {
      if (c.host().equals(A)) {
        topology.set(
            TestTopology.builder("rack1").node(B, 0).node(C, 0).version(5).build());
        engine.topology(); // the engine notices the new version: A's pool drains while we are in
        // flight
        assertThat(c.closed).isFalse();
      }
      return c.call("GET");
    });
    assertThat(served).isEqualTo("GET@7001");
    assertThat(fakes.opened.stream().filter(c -> c.host().equals(A)).allMatch(c -> c.closed))
        .isTrue();
    assertThat(engine.poolOf(A)).isNull();
    assertThat(get()).isEqualTo("GET@7002");
  }

  @Test
  void keepAlivePingsReallyRunOnIdleConnectionsAndABadOneIsReplaced() {
    engine(config().keepAliveInterval(Duration.ofSeconds(30)).minConnsPerHost(1));
    FakeFactory.Conn conn =
        fakes.opened.stream().filter(c -> c.host().equals(A)).findFirst().orElseThrow();
    clock.advance(Duration.ofSeconds(31));
    assertThat(conn.pings).isEqualTo(1);
    fakes.node(A).failPing = true;
    clock.advance(Duration.ofSeconds(31));
    assertThat(conn.closed).isTrue();
    assertThat(engine.poolOf(A).size()).isEqualTo(1); // refilled to the minimum
    assertThat(fakes.node(A).opens).isEqualTo(2);
  }

  @Test
  void closeIsIdempotentAndLaterCallsAreRefused() {
    engine(config());
    get();
    engine.close();
    engine.close();
    assertThat(fakes.openConnections()).isZero();
    assertThatThrownBy(this::get)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }
}
