package io.dyno.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DynoConfigTest {
  @Test
  void defaultsMatchTheDocumentedTable() {
    DynoConfig c = DynoConfig.defaults();
    assertThat(c.maxConnsPerHost()).isEqualTo(8);
    assertThat(c.minConnsPerHost()).isEqualTo(1);
    assertThat(c.maxTimeoutWhenExhausted()).isEqualTo(Duration.ofMillis(800));
    assertThat(c.connectTimeout()).isEqualTo(Duration.ofMillis(3000));
    assertThat(c.socketTimeout()).isEqualTo(Duration.ofMillis(2000));
    assertThat(c.maxFailoverCount()).isEqualTo(3);
    assertThat(c.retryPolicy()).hasToString("ExponentialBackoff:3:10:200");
    assertThat(c.defaultConsistency()).isNull();
    assertThat(c.hedgeReads()).isEqualTo(HedgePolicy.off());
    assertThat(c.describe())
        .containsEntry("keepAliveInterval", "30000 ms")
        .containsEntry("hedgeReads", "off")
        .containsEntry("failoverNonIdempotentWrites", "false")
        .containsEntry("divergedKeyLimit", "100000")
        .containsEntry("remoteDatacenterFallback", "READS")
        .containsEntry("nodeStatePollInterval", "1000 ms")
        .hasSize(32);
  }

  @Test
  void badValuesAreRejectedNamingTheSettingAndTheValue() {
    assertThatThrownBy(() -> DynoConfig.builder().maxConnsPerHost(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxConnsPerHost")
        .hasMessageContaining("0");
    assertThatThrownBy(() -> DynoConfig.builder().socketTimeout(Duration.ofMillis(-5)))
        .hasMessageContaining("socketTimeout")
        .hasMessageContaining("PT-0.005S");
    assertThatThrownBy(
            () -> DynoConfig.builder().maxConnsPerHost(2).minConnsPerHost(3).build())
        .hasMessageContaining("minConnsPerHost (3)")
        .hasMessageContaining("maxConnsPerHost (2)");
    assertThatThrownBy(() -> DynoConfig.builder().applicationName("my app"))
        .hasMessageContaining("applicationName")
        .hasMessageContaining("my app");
    assertThatThrownBy(() -> DynoConfig.builder().retryPolicy("RetryForever"))
        .hasMessageContaining("retryPolicy")
        .hasMessageContaining("RetryForever");
  }

  @Test
  void hedgePolicyTextFormsRoundTripAndBadOnesNameTheSettingAndTheForms() {
    assertThat(HedgePolicy.parse("off").enabled()).isFalse();
    assertThat(HedgePolicy.parse(" after:5 "))
        .isEqualTo(HedgePolicy.after(Duration.ofMillis(5)))
        .hasToString("after:5");
    assertThat(HedgePolicy.parse("p99:2"))
        .isEqualTo(HedgePolicy.nodeP99(Duration.ofMillis(2)))
        .hasToString("p99:2");
    assertThat(HedgePolicy.after(Duration.ofNanos(500_000))).hasToString("after:0.5");
    assertThat(HedgePolicy.parse("after:0.5"))
        .isEqualTo(HedgePolicy.after(Duration.ofNanos(500_000)));
    assertThat(HedgePolicy.nodeP99(Duration.ofMillis(2)).delayNanos(0)).isEqualTo(2_000_000);
    assertThat(HedgePolicy.nodeP99(Duration.ofMillis(2)).delayNanos(7_000_000))
        .isEqualTo(7_000_000);
    assertThat(HedgePolicy.after(Duration.ofMillis(5)).delayNanos(7_000_000)).isEqualTo(5_000_000);
    for (String bad : new String[] {"after:", "after:-1", "p99:x", "sometimes", "after:0"}) {
      assertThatThrownBy(() -> HedgePolicy.parse(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("hedgeReads")
          .hasMessageContaining(bad)
          .hasMessageContaining("after:<ms>");
    }
    assertThat(DynoConfig.builder()
            .hedgeReads(HedgePolicy.parse("p99:1"))
            .build()
            .hedgeReads()
            .followsNodeP99())
        .isTrue();
  }

  @Test
  void retryPolicyTextFormsRoundTripIncludingTheOriginalDynoForms() {
    assertThat(RetryPolicy.parse("RunOnce").maxAttempts()).isEqualTo(1);
    assertThat(RetryPolicy.parse("RetryNTimes:2").maxAttempts()).isEqualTo(3);
    assertThat(RetryPolicy.parse("RetryNTimes:2:true").maxAttempts()).isEqualTo(3);
    RetryPolicy exp = RetryPolicy.parse("ExponentialBackoff:4:10:100");
    assertThat(RetryPolicy.parse(exp.toString())).isEqualTo(exp);
    assertThat(exp.backoffNanos(1, () -> 0.999))
        .isLessThanOrEqualTo(10_000_000L)
        .isGreaterThan(9_000_000L);
    assertThat(exp.backoffNanos(10, () -> 0.999))
        .isLessThanOrEqualTo(100_000_000L)
        .isGreaterThan(99_000_000L);
    assertThatThrownBy(() -> RetryPolicy.parse("RetryNTimes:x"))
        .hasMessageContaining("RetryNTimes:x");
  }
}
