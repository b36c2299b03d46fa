package io.dyno.core.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.exec.TestTopology;
import io.dyno.core.internal.KnownCommands.Kind;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The one decision of whether a call is hedged, and the defaults a spec takes from the command
 * table.
 */
class CallSpecTest {
  static final Host A = TestTopology.host("rack1", 7001);
  static final Host B = TestTopology.host("rack2", 7002);
  static final HedgePolicy AFTER_5MS = HedgePolicy.after(Duration.ofMillis(5));
  final DynoConfig hedging = DynoConfig.builder().hedgeReads(AFTER_5MS).build();

  @Test
  void aReadOnTwoCandidatesIsHedgedWhenTheClientHedges() {
    CallSpec get = CallSpec.builder("GET", hedging).key("k").on(List.of(A, B)).build();
    assertThat(get.kind()).isEqualTo(Kind.READ);
    assertThat(get.idempotent()).isTrue();
    assertThat(get.hedged()).isTrue();
    assertThat(get.hedgeOn(List.of(A))).as("no second node to hedge to").isNull();
  }

  @Test
  void aSortThatStoresIsAWriteAndNeverHedged() {
    CallSpec sortStore = CallSpec.builder("SORT", hedging)
        .kind(Kind.WRITE)
        .key("k")
        .on(List.of(A, B))
        .build();
    assertThat(sortStore.read()).isFalse();
    assertThat(sortStore.hedged()).isFalse();
    assertThat(sortStore.hedgeOn(List.of(A, B))).isNull();
  }

  @Test
  void theOptionsOverrideTheClientsHedgingAndConsistency() {
    CallOptions off = CallOptions.defaults().withHedging(HedgePolicy.off());
    assertThat(CallSpec.builder("GET", hedging)
            .options(off)
            .on(List.of(A, B))
            .build()
            .hedged())
        .isFalse();
    CallOptions quorum = CallOptions.defaults().withConsistency(ConsistencyLevel.DC_QUORUM);
    assertThat(CallSpec.builder("GET", hedging).options(quorum).build().consistency())
        .isEqualTo(ConsistencyLevel.DC_QUORUM);
  }

  @Test
  void aCommandTheTableDoesNotListIsANonIdempotentWrite() {
    CallSpec unknown = CallSpec.builder("NOT-A-COMMAND", hedging).build();
    assertThat(unknown.kind()).isEqualTo(Kind.WRITE);
    assertThat(unknown.idempotent()).isFalse();
  }

  @Test
  void aConsistencyLevelInDatastoreModeIsRefusedNamingTheCommand() {
    DynoConfig datastore = DynoConfig.builder().datastoreMode(true).build();
    CallOptions quorum = CallOptions.defaults().withConsistency(ConsistencyLevel.DC_QUORUM);
    assertThatThrownBy(() -> CallSpec.builder("GET", datastore).options(quorum).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("GET")
        .hasMessageContaining("datastore mode");
  }
}
