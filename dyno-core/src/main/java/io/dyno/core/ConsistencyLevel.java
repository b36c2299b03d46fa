package io.dyno.core;

import java.util.Locale;

/** Dynomite's read/write consistency levels, set per connection with {@code DYNO_CONFIG:CONN_CONSISTENCY}. */
public enum ConsistencyLevel {
  /** Acknowledged by the local rack, replicated to the others asynchronously (Dynomite's default). */
  DC_ONE,
  /** Acknowledged by a quorum of racks in the local datacenter. */
  DC_QUORUM,
  /** A quorum whose replies must agree. */
  DC_SAFE_QUORUM,
  /**
   * A safe quorum in each datacenter. Dyno refuses it ({@code IllegalArgumentException} from
   * {@code CallOptions.withConsistency} and {@code DynoConfig}): Dynomite v0.6 cannot answer it on a
   * multi-datacenter cluster (docs/multi-region.md).
   */
  DC_EACH_SAFE_QUORUM;

  /**
   * Parses a level case-insensitively (surrounding blanks ignored).
   *
   * @param text e.g. {@code DC_QUORUM} or {@code dc_quorum}
   * @return the level
   * @throws IllegalArgumentException naming the bad value and the valid ones
   */
  public static ConsistencyLevel parse(String text) {
    try {
      return valueOf(text.trim().toUpperCase(Locale.ROOT));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "unknown consistency level \"" + text
              + "\"; expected one of DC_ONE, DC_QUORUM, DC_SAFE_QUORUM, DC_EACH_SAFE_QUORUM",
          e);
    }
  }
}
