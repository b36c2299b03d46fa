package io.dyno.core.exec.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The hedge budget: a burst, then a tenth of the hedgeable calls, never more than the burst saved. */
class HedgeBudgetTest {
  @Test
  void aBurstOfTenThenOneHedgeForEveryTenHedgeableCalls() {
    HedgeBudget b = new HedgeBudget();
    for (int i = 0; i < HedgeBudget.BURST; i++) {
      assertThat(b.trySpend()).as("hedge %d of the burst", i + 1).isTrue();
    }
    assertThat(b.trySpend()).as("the burst is spent").isFalse();

    int sent = 0;
    for (int call = 0; call < 1_000; call++) {
      b.earn(); // every call is slow and would hedge: a saturated cluster
      if (b.trySpend()) sent++;
    }
    assertThat(sent).as("hedges for 1,000 calls that all outlasted the delay").isEqualTo(100);
  }

  @Test
  void aQuietSpellSavesNoMoreThanTheBurst() {
    HedgeBudget b = new HedgeBudget();
    for (int call = 0; call < 10_000; call++) {
      b.earn(); // fast calls: none hedges
    }
    int sent = 0;
    while (b.trySpend()) sent++;
    assertThat(sent).isEqualTo(HedgeBudget.BURST);
  }
}
