package io.dyno.loadgen.bench;

/** How the load generator picks key indexes in {@code [0, keys)}. */
public enum KeyDistribution {
  /** Every key equally likely. */
  UNIFORM,
  /** A few hot keys (Zipf, theta configurable), scattered over the key space so they land on different nodes. */
  ZIPFIAN,
  /** {@code hotAccessPercent}% of accesses go to a hot set of {@code hotKeysPercent}% of the keys (spread over the key space), the rest uniform over all. */
  HOT_SET,
  /** Uniform within a window of keys that slides forward over time (a moving working set). */
  SLIDING_WINDOW
}
