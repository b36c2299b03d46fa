package io.dyno.core.exec.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How many hedges a client may send: at most {@link #SHARE} of its hedgeable calls, and a burst of
 * {@link #BURST}. A token bucket: each call that may hedge earns a share of a token, each hedge
 * spends a whole one. When the servers or the machine are saturated, every read outlasts a fixed
 * hedge delay and, unbudgeted, each would be sent twice, doubling the load that made it slow; with
 * the budget, hedges stay a tenth of the reads, which is what they are for (the tail, not the
 * body). The same rule as retry and hedge budgets elsewhere (Envoy's, gRPC's throttling).
 * Lock-free: one atomic add per hedgeable call, one compare-and-set per hedge.
 */
final class HedgeBudget {
  /** Hedges per hedgeable call, at most. */
  static final double SHARE = 0.1;
  /** Hedges that may go out at once after a quiet spell. */
  static final int BURST = 10;

  private static final long WHOLE = 1_000;
  private static final long EARNED = (long) (SHARE * WHOLE);
  private static final long CAP = BURST * WHOLE;

  /** Milli-tokens: starts full, so a client's first slow calls may hedge. */
  private final AtomicLong tokens = new AtomicLong(CAP);

  /** A call that may hedge has started: it earns its share of a hedge. */
  void earn() {
    if (tokens.get() < CAP && tokens.addAndGet(EARNED) > CAP) {
      tokens.accumulateAndGet(CAP, Math::min);
    }
  }

  /** True when a hedge may go out now (it spends a token); false when the budget is spent. */
  boolean trySpend() {
    for (long t = tokens.get(); t >= WHOLE; t = tokens.get()) {
      if (tokens.compareAndSet(t, t - WHOLE)) {
        return true;
      }
    }
    return false;
  }
}
