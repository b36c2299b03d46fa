package io.dyno.micrometer;

import com.netflix.spectator.api.AbstractRegistry;
import com.netflix.spectator.api.Clock;
import com.netflix.spectator.api.Counter;
import com.netflix.spectator.api.DistributionSummary;
import com.netflix.spectator.api.Gauge;
import com.netflix.spectator.api.Id;
import com.netflix.spectator.api.Statistic;
import com.netflix.spectator.api.Tag;
import com.netflix.spectator.api.Timer;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A Spectator registry whose meters record into a Micrometer {@link MeterRegistry} (see
 * {@link DynoMicrometer}). Spectator's {@link AbstractRegistry} keeps the ids, the one-meter-per-id
 * rule and the polled gauges' state; each new meter is registered once with Micrometer under the
 * same name and tags ({@link MicrometerMeters}).
 */
final class MicrometerRegistry extends AbstractRegistry {
  private static final String PERCENTILE = Statistic.percentile.name();

  private final MeterRegistry micrometer;

  MicrometerRegistry(MeterRegistry micrometer) {
    super(Clock.SYSTEM);
    this.micrometer = micrometer;
  }

  @Override
  protected Counter newCounter(Id id) {
    // Spectator's percentile meters keep their histogram in these counters; Micrometer keeps its
    // own.
    return isPercentileBucket(id)
        ? new SpectatorMeters.LocalCounter(id, clock())
        : MicrometerMeters.counter(micrometer, id, clock());
  }

  @Override
  protected DistributionSummary newDistributionSummary(Id id) {
    return MicrometerMeters.summary(micrometer, id, clock());
  }

  @Override
  protected Timer newTimer(Id id) {
    return MicrometerMeters.timer(micrometer, id, clock());
  }

  @Override
  protected Gauge newGauge(Id id) {
    return MicrometerMeters.gauge(micrometer, new SpectatorMeters.BridgedGauge(id, clock(), false));
  }

  @Override
  protected Gauge newMaxGauge(Id id) {
    return MicrometerMeters.gauge(micrometer, new SpectatorMeters.BridgedGauge(id, clock(), true));
  }

  /** A bucket counter of a Spectator PercentileTimer or PercentileDistributionSummary (tag statistic=percentile). */
  static boolean isPercentileBucket(Id id) {
    for (Tag t : id.tags()) {
      if (t.key().equals("statistic") && t.value().equals(PERCENTILE)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "MicrometerRegistry{" + micrometer.getClass().getSimpleName() + "}";
  }
}
