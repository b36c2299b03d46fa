package io.dyno.jedis.internal.mux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dyno.core.time.Ticker;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** The builder's values reach the record, and each value out of range is refused by its name. */
class MuxSettingsTest {
  @Test
  void aBuiltValueIsKeptAndACopyChangesOnlyWhatItSets() {
    Ticker clock = () -> 42L;
    MuxSettings s = MuxSettings.builder()
        .socketTimeout(Duration.ofMillis(700))
        .maxInFlight(8)
        .callerSockets(0)
        .auth("app", "s3cret")
        .database(3)
        .ticker(clock)
        .build();

    MuxSettings copy = s.toBuilder().connectTimeout(Duration.ofMillis(300)).build();

    assertThat(copy.connectTimeout()).isEqualTo(Duration.ofMillis(300));
    assertThat(copy.socketTimeout()).isEqualTo(Duration.ofMillis(700));
    assertThat(copy.maxInFlight()).isEqualTo(8);
    assertThat(copy.callerSockets()).isZero();
    assertThat(copy.user()).isEqualTo("app");
    assertThat(copy.database()).isEqualTo(3);
    assertThat(copy.ticker()).isSameAs(clock);
    assertThat(copy.toString()).contains("password=***").doesNotContain("s3cret");
    assertThat(MuxSettings.defaults()).isEqualTo(MuxSettings.builder().build());
  }

  @Test
  void eachValueOutOfRangeIsNamedInTheError() {
    refused(b -> b.connectTimeout(Duration.ZERO), "connectTimeout must be positive");
    refused(b -> b.socketTimeout(Duration.ofMillis(-1)), "socketTimeout must be positive");
    refused(b -> b.timeoutTick(null), "timeoutTick must be set");
    refused(b -> b.inFlightWait(Duration.ZERO), "inFlightWait must be positive");
    refused(b -> b.maxInFlight(0), "maxInFlight must be >= 1, was 0");
    refused(b -> b.maxWritesInFlight(-1), "maxWritesInFlight must be >= 0");
    refused(b -> b.callerSockets(65), "callerSockets must be 0..64, was 65");
    refused(b -> b.maxBulkBytes(0), "maxBulkBytes must be >= 1");
    refused(b -> b.auth("app", null), "a user (app) was given without a password");
    refused(b -> b.database(-2), "database must be >= 0, was -2");
  }

  @Test
  void noListenerAndNoTickerMeanTheDefaults() {
    MuxSettings s = MuxSettings.builder().listener(null).ticker(null).build();

    assertThat(s.listener()).isSameAs(MuxListener.NONE);
    assertThat(s.ticker()).isNotNull();
    assertThat(s.inFlightWaitNanos()).isEqualTo(Long.MAX_VALUE);
  }

  private static void refused(UnaryOperator<MuxSettings.Builder> change, String message) {
    assertThatThrownBy(() -> change.apply(MuxSettings.builder()).build())
        .hasMessageContaining(message);
  }
}
