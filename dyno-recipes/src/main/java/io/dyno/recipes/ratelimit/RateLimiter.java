package io.dyno.recipes.ratelimit;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import redis.clients.jedis.UnifiedJedis;

/**
 * A per-key token bucket kept in the cluster, so any number of application instances share one
 * limit per key: each bucket holds up to {@code burst} permits and refills at {@code permits} per
 * {@code period}. One {@code EVAL} with one key per decision: atomic on the key's owner, and valid
 * through Dynomite (whose EVAL needs every key on one node).
 *
 * <h2>Guarantees</h2>
 * Over any interval of length T, one key admits at most {@code burst + permits * T / period} permits,
 * counted on the node that owns the key, as long as the instances' clocks agree (below).
 *
 * <h2>What it does not guarantee</h2>
 * <ul>
 *   <li><b>Clock.</b> Dynomite refuses {@code TIME}, so the script cannot read the server clock: each
 *       caller passes its own wall-clock time. The bucket never moves its clock backwards (a caller
 *       behind the stored time refills nothing), so a caller whose clock runs {@code d} ms ahead can
 *       refill early, admitting up to {@code permits * d / period} extra once. Keep clocks in sync (NTP).</li>
 *   <li><b>Failover.</b> At DC_ONE the bucket lives on the key's owner in the local rack and is
 *       replicated asynchronously; if the client fails over to another rack, that rack's copy may be
 *       slightly behind and admit up to one burst more. A rack-local limiter is the intent.</li>
 *   <li><b>Failures.</b> When the cluster cannot answer, {@link #tryAcquire} throws: the caller decides
 *       whether to fail open or closed.</li>
 * </ul>
 */
public final class RateLimiter {
  // State: u = stored permits scaled by periodMs (so refill is integer math: elapsed ms * permits),
  // ts = time of the last refill in ms. ARGV: permits, periodMs, burst, nowMs, requested, ttlMs.
  static final String SCRIPT = "local permits = tonumber(ARGV[1])\n"
      + "local period = tonumber(ARGV[2])\n"
      + "local cap = tonumber(ARGV[3]) * period\n"
      + "local now = tonumber(ARGV[4])\n"
      + "local want = tonumber(ARGV[5]) * period\n"
      + "local s = redis.call('hmget', KEYS[1], 'u', 'ts')\n"
      + "local u = tonumber(s[1])\n"
      + "local ts = tonumber(s[2])\n"
      + "if u == nil or ts == nil then u = cap; ts = now end\n"
      + "if now > ts then u = math.min(cap, u + (now - ts) * permits); ts = now end\n"
      + "local ok = 0\n"
      + "if u >= want then u = u - want; ok = 1 end\n"
      + "redis.call('hset', KEYS[1], 'u', string.format('%.0f', u), 'ts', string.format('%.0f', ts))\n"
      + "redis.call('pexpire', KEYS[1], ARGV[6])\n"
      + "local wait = 0\n"
      + "if ok == 0 then wait = math.ceil((want - u) / permits) end\n"
      + "return {ok, math.floor(u / period), wait}";

  private final UnifiedJedis client;
  private final long permits;
  private final long periodMs;
  private final long burst;
  private final String keyPrefix;
  private final InstantSource clock;
  private final String ttlMs;

  private RateLimiter(Builder b) {
    this.client = b.client;
    this.permits = b.permits;
    this.periodMs = b.period.toMillis();
    this.burst = b.burst > 0 ? b.burst : b.permits;
    this.keyPrefix = b.keyPrefix;
    this.clock = b.clock;
    // Idle buckets vanish once they would be full again anyway.
    this.ttlMs = Long.toString(Math.max(1000, (burst * periodMs + permits - 1) / permits + 1000));
  }

  public static Builder builder(UnifiedJedis client) {
    return new Builder(client);
  }

  /** The outcome of one request. */
  public record Decision(boolean allowed, long remaining, Duration retryAfter) {}

  /** Takes one permit for {@code key} if available. */
  public boolean tryAcquire(String key) {
    return tryAcquire(key, 1).allowed();
  }

  /** Takes {@code n} permits for {@code key} if all are available (all or nothing). */
  public Decision tryAcquire(String key, long n) {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("rate limiter: key must not be empty");
    }
    if (n < 1 || n > burst) {
      throw new IllegalArgumentException("rate limiter on '" + key
          + "': permits requested must be 1.." + burst + " (the burst), was " + n);
    }
    long now = clock.millis();
    Object r = client.eval(
        SCRIPT,
        List.of(keyPrefix + key),
        List.of(
            Long.toString(permits),
            Long.toString(periodMs),
            Long.toString(burst),
            Long.toString(now),
            Long.toString(n),
            ttlMs));
    if (!(r instanceof List<?> l) || l.size() != 3) {
      throw new IllegalStateException(
          "rate limiter on '" + key + "': unexpected script reply " + r);
    }
    return new Decision(
        ((Long) l.get(0)) == 1L, (Long) l.get(1), Duration.ofMillis((Long) l.get(2)));
  }

  @Override
  public String toString() {
    return "RateLimiter{" + permits + " per " + periodMs + " ms, burst " + burst + "}";
  }

  /** Builds a {@link RateLimiter}; {@code permits} and {@code period} are required. */
  public static final class Builder {
    private final UnifiedJedis client;
    private long permits;
    private Duration period;
    private long burst;
    private String keyPrefix = "dyno:rate:";
    private InstantSource clock = InstantSource.system();

    private Builder(UnifiedJedis client) {
      this.client = Objects.requireNonNull(client, "client");
    }

    /** Sustained rate: {@code permits} per {@code period}. */
    public Builder rate(long permits, Duration period) {
      if (permits < 1) {
        throw new IllegalArgumentException(
            "rate limiter: permits must be at least 1, was " + permits);
      }
      if (period == null || period.toMillis() < 1) {
        throw new IllegalArgumentException(
            "rate limiter: period must be at least 1 ms, was " + period);
      }
      this.permits = permits;
      this.period = period;
      return this;
    }

    /** Bucket size: the most permits admitted at once after a quiet spell (default: permits per period). */
    public Builder burst(long burst) {
      if (burst < 1) {
        throw new IllegalArgumentException("rate limiter: burst must be at least 1, was " + burst);
      }
      this.burst = burst;
      return this;
    }

    public Builder keyPrefix(String prefix) {
      this.keyPrefix = Objects.requireNonNull(prefix, "keyPrefix");
      return this;
    }

    /** Wall clock passed to the script (must agree across instances); inject a fake one in tests. */
    public Builder clock(InstantSource clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public RateLimiter build() {
      if (period == null) {
        throw new IllegalStateException("rate limiter: rate(permits, period) is required");
      }
      long b = burst > 0 ? burst : permits;
      if ((double) b * period.toMillis() > (1L << 52)) {
        throw new IllegalArgumentException(
            "rate limiter: burst * period in ms must stay below 2^52, was " + b + " * "
                + period.toMillis());
      }
      return new RateLimiter(this);
    }
  }
}
