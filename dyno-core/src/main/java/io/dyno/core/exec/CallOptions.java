package io.dyno.core.exec;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.config.HedgePolicy;
import io.dyno.core.internal.ConsistencyRefusal;
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

  private CallOptions(
      ConsistencyLevel consistency,
      Duration deadline,
      Boolean retryNonIdempotent,
      HedgePolicy hedging) {
    this.consistency = consistency;
    this.deadline = deadline;
    this.retryNonIdempotent = retryNonIdempotent;
    this.hedging = hedging;
  }

  /** {@return options that override nothing: every call uses the client's defaults} */
  public static CallOptions defaults() {
    return DEFAULTS;
  }

  /**
   * These options with another consistency level.
   *
   * @param level the level, or null for the client's default
   * @return new options (this object is unchanged)
   * @throws IllegalArgumentException for {@link ConsistencyLevel#DC_EACH_SAFE_QUORUM}, which Dyno
   *     refuses (the message says why)
   */
  public CallOptions withConsistency(ConsistencyLevel level) {
    return new CallOptions(ConsistencyRefusal.check(level), deadline, retryNonIdempotent, hedging);
  }

  /**
   * These options with a deadline: the whole call — borrows, attempts, backoff — must finish within
   * {@code d}, else it fails with {@code DeadlineExceededException}.
   *
   * @param d a positive duration, or null for the client's default
   * @return new options (this object is unchanged)
   * @throws IllegalArgumentException when {@code d} is zero or negative
   */
  public CallOptions withDeadline(Duration d) {
    if (d != null && (d.isNegative() || d.isZero())) {
      throw new IllegalArgumentException("deadline must be positive, was " + d);
    }
    return new CallOptions(consistency, d, retryNonIdempotent, hedging);
  }

  /**
   * These options allowing, or not, retries of non-idempotent commands (e.g. INCR), which may then
   * apply twice.
   *
   * @param retry true to allow such retries
   * @return new options (this object is unchanged)
   */
  public CallOptions withRetryNonIdempotent(boolean retry) {
    return new CallOptions(consistency, deadline, retry, hedging);
  }

  /**
   * Hedged reads for this call ({@link HedgePolicy#off()} turns them off where the client has them
   * on). Only reads are hedged: a command of another kind never is.
   *
   * @param policy the policy, or null for the client's default
   * @return new options (this object is unchanged)
   */
  public CallOptions withHedging(HedgePolicy policy) {
    return new CallOptions(consistency, deadline, retryNonIdempotent, policy);
  }

  /** {@return the consistency level, or null for the client's default} */
  public ConsistencyLevel consistency() {
    return consistency;
  }
  /** {@return the deadline of the whole call, or null for the client's default} */
  public Duration deadline() {
    return deadline;
  }
  /** {@return whether non-idempotent commands may be retried, or null for the client's default} */
  public Boolean retryNonIdempotent() {
    return retryNonIdempotent;
  }
  /** {@return the hedging of this call's reads, or null for the client's default} */
  public HedgePolicy hedging() {
    return hedging;
  }

  @Override
  public String toString() {
    return "CallOptions{consistency=" + consistency + ", deadline=" + deadline
        + ", retryNonIdempotent=" + retryNonIdempotent
        + (hedging == null ? "" : ", hedging=" + hedging) + "}";
  }
}
