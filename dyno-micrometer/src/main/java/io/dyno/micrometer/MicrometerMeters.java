package io.dyno.micrometer;

import com.netflix.spectator.api.Clock;
import com.netflix.spectator.api.Id;
import io.dyno.core.metrics.DynoMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Registers the Micrometer meter behind each Spectator meter of {@link MicrometerRegistry}: the same
 * name, the same tags. (Kept apart from {@link SpectatorMeters}: both libraries name their types
 * {@code Counter}, {@code Timer} …, and each file imports one library's.)
 */
final class MicrometerMeters {
  /**
   * Dyno's PercentileTimers: Micrometer keeps their percentile histogram, over the range Dyno gives
   * Spectator's (1 µs to 1 min), so the buckets resolve a healthy pool's microsecond waits.
   */
  private static final Set<String> PERCENTILE_TIMERS =
      Set.of(DynoMetrics.POOL_BORROW, DynoMetrics.MUX_QUEUE_DELAY);

  private MicrometerMeters() {}

  static SpectatorMeters.BridgedCounter counter(MeterRegistry registry, Id id, Clock clock) {
    Counter c = Counter.builder(id.name()).tags(tags(id)).register(registry);
    return new SpectatorMeters.BridgedCounter(id, clock, c::increment, c::count);
  }

  static SpectatorMeters.BridgedSummary summary(MeterRegistry registry, Id id, Clock clock) {
    DistributionSummary s =
        DistributionSummary.builder(id.name()).tags(tags(id)).register(registry);
    return new SpectatorMeters.BridgedSummary(id, clock, s::record, s::count, s::totalAmount);
  }

  /** The range Dyno's Spectator percentile timers cover (1 us to 1 min), kept the same here. */
  private static final Duration HISTOGRAM_MIN = Duration.ofNanos(1_000);

  private static final Duration HISTOGRAM_MAX = Duration.ofMinutes(1);

  static SpectatorMeters.BridgedTimer timer(MeterRegistry registry, Id id, Clock clock) {
    Timer.Builder b = Timer.builder(id.name()).tags(tags(id));
    if (PERCENTILE_TIMERS.contains(id.name())) {
      b.publishPercentileHistogram()
          .minimumExpectedValue(HISTOGRAM_MIN)
          .maximumExpectedValue(HISTOGRAM_MAX);
    }
    Timer t = b.register(registry);
    return new SpectatorMeters.BridgedTimer(
        id,
        clock,
        nanos -> t.record(nanos, TimeUnit.NANOSECONDS),
        t::count,
        () -> t.totalTime(TimeUnit.NANOSECONDS));
  }

  /** Registers {@code gauge} (held strongly by the Micrometer registry: Spectator sets it, Micrometer reads it). */
  static SpectatorMeters.BridgedGauge gauge(
      MeterRegistry registry, SpectatorMeters.BridgedGauge gauge) {
    Id id = gauge.id();
    Gauge.builder(id.name(), gauge, SpectatorMeters.BridgedGauge::read)
        .tags(tags(id))
        .strongReference(true)
        .register(registry);
    return gauge;
  }

  /** The Spectator id's tags (position 0 of an id is its name). */
  static Tags tags(Id id) {
    String[] kv = new String[2 * (id.size() - 1)];
    for (int i = 1; i < id.size(); i++) {
      kv[2 * (i - 1)] = id.getKey(i);
      kv[2 * (i - 1) + 1] = id.getValue(i);
    }
    return Tags.of(kv);
  }
}
