package io.dyno.core.config;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.DoubleSupplier;

/**
 * How many times a command may run, and how long to wait before running it again on a node that
 * was already tried in the same call. Moving to a fresh replica (another rack) never waits.
 *
 * <p>Text forms (Archaius {@code dyno.<app>.retryPolicy}): {@code RunOnce},
 * {@code RetryNTimes:<n>} (n retries, so n+1 runs, no backoff; an original-Dyno third field
 * {@code :<allowFallback>} is accepted and ignored), {@code ExponentialBackoff:<attempts>:<baseMs>:<maxMs>}.
 */
public final class RetryPolicy {
  /** The kinds of policy. */
  public enum Kind { RUN_ONCE, RETRY_N_TIMES, EXPONENTIAL_BACKOFF }

  private static final RetryPolicy RUN_ONCE = new RetryPolicy(Kind.RUN_ONCE, 1, Duration.ZERO, Duration.ZERO);

  private final Kind kind;
  private final int maxAttempts;
  private final Duration base;
  private final Duration max;

  private RetryPolicy(Kind kind, int maxAttempts, Duration base, Duration max) {
    this.kind = kind;
    this.maxAttempts = maxAttempts;
    this.base = base;
    this.max = max;
  }

  /** One run, no retry (the original Dyno's default). Borrow failures still fail over. */
  public static RetryPolicy runOnce() {
    return RUN_ONCE;
  }

  /** {@code retries} retries after the first run ({@code retries + 1} runs), without waiting. */
  public static RetryPolicy retryNTimes(int retries) {
    if (retries < 0 || retries > 100) {
      throw new IllegalArgumentException("retryPolicy: retries must be 0..100, was " + retries);
    }
    return retries == 0 ? RUN_ONCE : new RetryPolicy(Kind.RETRY_N_TIMES, retries + 1, Duration.ZERO, Duration.ZERO);
  }

  /**
   * Up to {@code maxAttempts} runs; before re-running on a node already tried, waits a random time
   * in {@code [0, min(max, base * 2^(n-1))]} ("full jitter"), n = 1 for the first such wait.
   */
  public static RetryPolicy exponentialBackoff(int maxAttempts, Duration base, Duration max) {
    if (maxAttempts < 1 || maxAttempts > 100) {
      throw new IllegalArgumentException("retryPolicy: maxAttempts must be 1..100, was " + maxAttempts);
    }
    Objects.requireNonNull(base, "retryPolicy: base");
    Objects.requireNonNull(max, "retryPolicy: max");
    if (base.isNegative() || max.isNegative() || max.compareTo(base) < 0) {
      throw new IllegalArgumentException("retryPolicy: need 0 <= base <= max, was base=" + base + " max=" + max);
    }
    return new RetryPolicy(Kind.EXPONENTIAL_BACKOFF, maxAttempts, base, max);
  }

  /** Parses the text forms above; names the bad value on failure. */
  public static RetryPolicy parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("retryPolicy: must not be null");
    }
    String[] parts = text.trim().split(":");
    try {
      switch (parts[0].toLowerCase(Locale.ROOT)) {
        case "runonce":
          if (parts.length == 1) return runOnce();
          break;
        case "retryntimes":
          if (parts.length == 2 || parts.length == 3) return retryNTimes(Integer.parseInt(parts[1].trim()));
          break;
        case "exponentialbackoff":
          if (parts.length == 4) {
            return exponentialBackoff(Integer.parseInt(parts[1].trim()),
                Duration.ofMillis(Long.parseLong(parts[2].trim())), Duration.ofMillis(Long.parseLong(parts[3].trim())));
          }
          break;
        default:
          break;
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("retryPolicy: bad number in \"" + text + "\"", e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage() + " (in \"" + text + "\")", e);
    }
    throw new IllegalArgumentException("retryPolicy: unknown value \"" + text
        + "\"; expected RunOnce, RetryNTimes:<n> or ExponentialBackoff:<attempts>:<baseMs>:<maxMs>");
  }

  public Kind kind() { return kind; }

  /** Total runs allowed, first included. */
  public int maxAttempts() { return maxAttempts; }

  /**
   * The wait before the {@code n}-th re-run on an already-tried node (n starts at 1);
   * {@code random} returns values in [0, 1).
   */
  public long backoffNanos(int n, DoubleSupplier random) {
    if (kind != Kind.EXPONENTIAL_BACKOFF || max.isZero()) {
      return 0;
    }
    long cap = max.toNanos();
    long exp = base.toNanos() << Math.min(30, Math.max(0, n - 1));
    long bound = exp <= 0 || exp > cap ? cap : exp;
    return (long) (random.getAsDouble() * bound);
  }

  /** The text form, parseable by {@link #parse(String)}. */
  @Override
  public String toString() {
    return switch (kind) {
      case RUN_ONCE -> "RunOnce";
      case RETRY_N_TIMES -> "RetryNTimes:" + (maxAttempts - 1);
      case EXPONENTIAL_BACKOFF -> "ExponentialBackoff:" + maxAttempts + ":" + base.toMillis() + ":" + max.toMillis();
    };
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RetryPolicy r && r.kind == kind && r.maxAttempts == maxAttempts && r.base.equals(base) && r.max.equals(max);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, maxAttempts, base, max);
  }
}
