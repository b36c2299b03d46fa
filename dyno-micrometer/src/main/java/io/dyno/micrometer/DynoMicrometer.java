package io.dyno.micrometer;

import com.netflix.spectator.api.Registry;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;

/**
 * Dyno's meters in Micrometer. Dyno records to a Spectator {@link Registry}; this gives one that
 * records into a Micrometer {@link MeterRegistry}, to pass to the client:
 * <pre>{@code
 * DynoJedisClient client = DynoJedisClient.builder()
 *     ...
 *     .registry(DynoMicrometer.registry(meterRegistry))
 *     .build();
 * }</pre>
 *
 * <p>Every meter keeps its Spectator name and tags ({@code dyno.pool.borrow} with {@code app},
 * {@code node}, {@code rack} …; docs/metrics.md lists them); the Micrometer registry applies its
 * own naming convention on export (Prometheus: {@code dyno_pool_borrow_seconds}). Counters, timers,
 * distribution summaries and gauges map one to one. The two percentile timers
 * ({@code dyno.pool.borrow}, {@code dyno.mux.queue.delay}) become Micrometer timers with a
 * percentile histogram from 1 µs to 1 min (a {@code MeterFilter} may change that); the bucket
 * counters Spectator would add beside them (tag {@code statistic=percentile}) are not passed on,
 * since Micrometer keeps the histogram itself. Gauges are polled by Spectator (every 10 s) and keep
 * their last value, as in Spectator's own registry.
 *
 * <p>Use one per {@code MeterRegistry}, shared by every client that records there: two bridges
 * over one registry would each register a gauge of the same id, and Micrometer keeps the first.
 */
public final class DynoMicrometer {
  private DynoMicrometer() {}

  /**
   * A Spectator registry recording into {@code meterRegistry}; pass it to
   * {@code DynoJedisClient.builder().registry(...)}.
   *
   * @param meterRegistry the application's Micrometer registry
   * @return a Spectator registry whose meters are registered with, and record into, {@code meterRegistry}
   */
  public static Registry registry(MeterRegistry meterRegistry) {
    Objects.requireNonNull(meterRegistry, "meterRegistry");
    return new MicrometerRegistry(meterRegistry);
  }
}
