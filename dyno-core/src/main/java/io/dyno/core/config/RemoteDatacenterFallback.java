package io.dyno.core.config;

import java.util.Locale;

/**
 * Which calls may go to another datacenter when no replica of the key in the local datacenter can
 * take them ({@link DynoConfig#remoteDatacenterFallback()}). The local datacenter is always tried
 * first; this only decides whether the other datacenters' replicas follow it.
 */
public enum RemoteDatacenterFallback {
  /** No call leaves the local datacenter. */
  NEVER,
  /** Reads may; writes stay in the local datacenter (the default). */
  READS,
  /** Reads and idempotent writes (SET, DEL, HSET …) may; INCR, LPUSH and the like stay. */
  READS_AND_IDEMPOTENT_WRITES,
  /** Every call may. */
  ALL;

  /**
   * Whether a call may go to another datacenter.
   *
   * @param read whether the call says it reads
   * @param idempotent whether running it twice is harmless
   * @return true when this setting lets it go
   */
  public boolean allows(boolean read, boolean idempotent) {
    return switch (this) {
      case NEVER -> false;
      case READS -> read;
      case READS_AND_IDEMPOTENT_WRITES -> read || idempotent;
      case ALL -> true;
    };
  }

  /**
   * Parses a value case-insensitively ({@code reads}, {@code READS_AND_IDEMPOTENT_WRITES}).
   *
   * @param text the value
   * @return the setting
   * @throws IllegalArgumentException naming the bad value and the valid ones
   */
  public static RemoteDatacenterFallback parse(String text) {
    try {
      return valueOf(text.trim().toUpperCase(Locale.ROOT));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "remoteDatacenterFallback: invalid value \"" + text
              + "\"; expected NEVER, READS, READS_AND_IDEMPOTENT_WRITES or ALL",
          e);
    }
  }
}
