package io.dyno.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The original Dyno's {@code allowFallback} field of {@code RetryNTimes} is read, kept and printed, not dropped. */
class RetryPolicyCrossRackTest {
  @Test
  void theThirdFieldOfRetryNTimesSaysWhetherRetriesMayGoToAnotherRack() {
    RetryPolicy stay = RetryPolicy.parse("RetryNTimes:2:false");
    assertThat(stay.allowCrossRackFallback()).isFalse();
    assertThat(stay.maxAttempts()).isEqualTo(3);
    assertThat(stay).hasToString("RetryNTimes:2:false");
    assertThat(RetryPolicy.parse(stay.toString())).isEqualTo(stay);

    RetryPolicy move = RetryPolicy.parse("RetryNTimes:2:TRUE");
    assertThat(move.allowCrossRackFallback()).isTrue();
    assertThat(move)
        .hasToString("RetryNTimes:2")
        .isEqualTo(RetryPolicy.parse("RetryNTimes:2"))
        .isNotEqualTo(stay);
  }

  @Test
  void withoutTheFieldRetriesMayGoToAnotherRack() {
    assertThat(RetryPolicy.parse("RetryNTimes:2").allowCrossRackFallback()).isTrue();
    assertThat(RetryPolicy.parse("ExponentialBackoff:3:10:200").allowCrossRackFallback())
        .isTrue();
    assertThat(RetryPolicy.runOnce().allowCrossRackFallback()).isTrue();
    assertThat(DynoConfig.defaults().retryPolicy().allowCrossRackFallback()).isTrue();
  }

  @Test
  void exponentialBackoffTakesTheSameField() {
    RetryPolicy p = RetryPolicy.parse("ExponentialBackoff:3:10:200:false");
    assertThat(p.allowCrossRackFallback()).isFalse();
    assertThat(p).hasToString("ExponentialBackoff:3:10:200:false");
    assertThat(p)
        .isEqualTo(RetryPolicy.exponentialBackoff(3, Duration.ofMillis(10), Duration.ofMillis(200))
            .withCrossRackFallback(false));
    assertThat(p.withCrossRackFallback(true)).hasToString("ExponentialBackoff:3:10:200");
  }

  @Test
  void aValueOtherThanTrueOrFalseIsRefusedNamingTheSettingAndTheValue() {
    assertThatThrownBy(() -> RetryPolicy.parse("RetryNTimes:2:yes"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retryPolicy")
        .hasMessageContaining("allowCrossRackFallback")
        .hasMessageContaining("\"yes\"")
        .hasMessageContaining("RetryNTimes:2:yes");
    assertThatThrownBy(() -> RetryPolicy.parse("RetryNTimes:2:false:x"))
        .hasMessageContaining("RetryNTimes:2:false:x");
    assertThatThrownBy(() -> DynoConfig.builder().retryPolicy("ExponentialBackoff:3:10:200:0"))
        .hasMessageContaining("allowCrossRackFallback");
  }

  @Test
  void runOnceHasNoRetriesToKeepInTheRack() {
    assertThat(RetryPolicy.runOnce().withCrossRackFallback(false)).isSameAs(RetryPolicy.runOnce());
    assertThat(RetryPolicy.parse("RetryNTimes:0:false")).isSameAs(RetryPolicy.runOnce());
  }

  @Test
  void theSettingCarriesItThroughTheConfig() {
    DynoConfig c = DynoConfig.builder().retryPolicy("RetryNTimes:1:false").build();
    assertThat(c.retryPolicy().allowCrossRackFallback()).isFalse();
    assertThat(c.toBuilder().build().retryPolicy()).isEqualTo(c.retryPolicy());
  }
}
