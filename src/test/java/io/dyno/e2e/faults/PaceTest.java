package io.dyno.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PaceTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final Pace pace = new Pace(100, 1_050, now::get);

  @Test
  void waitsForEachSlotOneIntervalAfterTheLast() {
    assertThat(pace.untilNextSlot()).isEqualTo(50);
    now.set(1_050);
    assertThat(pace.untilNextSlot()).isZero();
    now.set(1_060); // a call of 10 ns
    pace.advance();
    assertThat(pace.untilNextSlot()).isEqualTo(90);
    assertThat(pace.dropped()).isZero();
  }

  @Test
  void aThreadBehindRunsAtOnceAndDropsTheSlotsItMissedInsteadOfBursting() {
    now.set(1_050);
    now.set(1_400); // a call that outlasted slots 1150, 1250 and 1350
    pace.advance();
    assertThat(pace.untilNextSlot()).as("the late slot runs at once").isZero();
    assertThat(pace.dropped()).isEqualTo(2);
    now.set(1_401);
    pace.advance();
    assertThat(pace.untilNextSlot())
        .as("then one interval on, not a catch-up burst")
        .isEqualTo(99);
  }

  @Test
  void theIntervalSharesTheRateAmongTheThreads() {
    assertThat(Pace.intervalNanos(1_000, 5)).isEqualTo(5_000_000);
    assertThatThrownBy(() -> Pace.intervalNanos(0, 5)).hasMessageContaining("rate 0");
  }

  @Test
  void awaitSlotReturnsFalseOnceStopped() {
    assertThat(pace.awaitSlot(() -> false)).isFalse();
    now.set(1_050);
    assertThat(pace.awaitSlot(() -> true)).isTrue();
  }
}
