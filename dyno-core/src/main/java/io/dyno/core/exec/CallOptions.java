package io.dyno.core.exec;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.config.HedgePolicy;
import java.time.Duration;

/**
 * Per-call overrides of the client's defaults. Immutable; {@code null} fields mean "the client's
 * default". Example: {@code CallOptions.defaults().withConsistency(DC_QUORUM)}.
 */
public final class CallOptions {
  private static final CallOptions DEFAULTS = new CallOptions(null, null, null, null);

  private final ConsistencyLevel consistency;
  private final Duration deadline;
  private final Boolean retryNonIdempotent;
  private final HedgePolicy hedging;

  private CallOptions(ConsistencyLevel consistency, Duration deadline, Boolean retryNonIdempotent,
      HedgePolicy hedging) {
    this.consistency = consistency;
    this.deadline = deadline;
    this.retryNonIdempotent = retryNonIdempotent;
    this.hedging = hedging;
  }

  public static CallOptions defaults() {
    return DEFAULTS;
  }

  public CallOptions withConsistency(ConsistencyLevel level) {
    return new CallOptions(level, deadline, retryNonIdempotent, hedging);
  }

  /** The whole call — borrows, attempts, backoff — must finish within {@code d}. */
  public CallOptions withDeadline(Duration d) {
    if (d != null && (d.isNegative() || d.isZero())) {
      throw new IllegalArgumentException("deadline must be positive, was " + d);
    }
    return new CallOptions(consistency, d, retryNonIdempotent, hedging);
  }

  /** Allows retrying non-idempotent commands (e.g. INCR), which may then apply twice. */
  public CallOptions withRetryNonIdempotent(boolean retry) {
    return new CallOptions(consistency, deadline, retry, hedging);
  }

  /**
   * Hedged reads for this call ({@link HedgePolicy#off()} turns them off where the client has them
   * on). Writes are never hedged; on a blocking transport (pooled) nothing is.
   */
  public CallOptions withHedging(HedgePolicy policy) {
    return new CallOptions(consistency, deadline, retryNonIdempotent, policy);
  }

  public ConsistencyLevel consistency() { return consistency; }
  public Duration deadline() { return deadline; }
  public Boolean retryNonIdempotent() { return retryNonIdempotent; }
  public HedgePolicy hedging() { return hedging; }

  @Override
  public String toString() {
    return "CallOptions{consistency=" + consistency + ", deadline=" + deadline
        + ", retryNonIdempotent=" + retryNonIdempotent + (hedging == null ? "" : ", hedging=" + hedging) + "}";
  }
}
