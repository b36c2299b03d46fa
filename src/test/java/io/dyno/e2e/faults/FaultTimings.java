package io.dyno.e2e.faults;

import java.time.Duration;

/**
 * How long each phase of a fault run lasts and how much load it carries. The defaults keep the
 * suite under ~4 minutes on a 2-core CI machine; system properties make longer runs (e.g.
 * {@code -Ddyno.faults.healthy=20 -Ddyno.faults.after=20 -Ddyno.faults.threads=16}, as the
 * issue's hand-run measurements did).
 *
 * @param warmUp load before measuring ({@code dyno.faults.warmUp}, seconds, default 2)
 * @param healthy the healthy phase measured before the fault ({@code dyno.faults.healthy}, 5)
 * @param fault how long a blackhole, latency or loss lasts ({@code dyno.faults.fault}, 20)
 * @param storm how long the reset storm lasts ({@code dyno.faults.storm}, 30)
 * @param stormPeriod a kill and revive every ({@code dyno.faults.stormPeriod}, 3)
 * @param after at most this long after the fault ({@code dyno.faults.after}, 10)
 * @param threads load threads per client ({@code dyno.faults.threads}, 6)
 * @param rate operations a second per client, its threads paced together ({@code dyno.faults.rate},
 *     {@value #RATE_DEFAULT}; 0: unpaced, each thread calls again at once and the three clients saturate a
 *     2-core machine by themselves)
 * @param counterThreads INCR threads per client in the counter check ({@code dyno.faults.counterThreads}, 8)
 * @param counterRate INCRs a second per client, paced as the load ({@code dyno.faults.counterRate},
 *     {@value #COUNTER_RATE_DEFAULT}; 0: unpaced)
 * @param keys keys in the load's key set ({@code dyno.faults.keys}, 5000)
 */
record FaultTimings(
    Duration warmUp,
    Duration healthy,
    Duration fault,
    Duration storm,
    Duration stormPeriod,
    Duration after,
    int threads,
    int rate,
    int counterThreads,
    int counterRate,
    int keys) {

  /**
   * The default rate per client: low enough that the three clients, twelve containers and the test
   * leave a 2-core machine well idle (docs/node-faults.md, "What is measured"), so a second below
   * half of it is the client's stall, not the machine's.
   */
  static final int RATE_DEFAULT = 800;

  /** The default INCR rate per client in the counter check, paced for the same reason. */
  static final int COUNTER_RATE_DEFAULT = 400;

  static FaultTimings fromSystemProperties() {
    return new FaultTimings(
        seconds("dyno.faults.warmUp", 2),
        seconds("dyno.faults.healthy", 5),
        seconds("dyno.faults.fault", 20),
        seconds("dyno.faults.storm", 30),
        seconds("dyno.faults.stormPeriod", 3),
        seconds("dyno.faults.after", 10),
        Integer.getInteger("dyno.faults.threads", 6),
        Integer.getInteger("dyno.faults.rate", RATE_DEFAULT),
        Integer.getInteger("dyno.faults.counterThreads", 8),
        Integer.getInteger("dyno.faults.counterRate", COUNTER_RATE_DEFAULT),
        Integer.getInteger("dyno.faults.keys", 5000));
  }

  private static Duration seconds(String property, int byDefault) {
    return Duration.ofSeconds(Integer.getInteger(property, byDefault));
  }

  @Override
  public String toString() {
    return String.format(
        "%d s healthy, then the fault, then up to %d s after; %d load threads per client, %s"
            + " (80/20 GET/SET, 1 KiB, %d keys), deadline %d ms",
        healthy.toSeconds(),
        after.toSeconds(),
        threads,
        rate > 0 ? "paced to " + rate + " ops/s together" : "unpaced",
        keys,
        FaultRun.DEADLINE.toMillis());
  }
}
