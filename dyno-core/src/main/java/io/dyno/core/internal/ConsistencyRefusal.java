package io.dyno.core.internal;

import io.dyno.core.ConsistencyLevel;

/**
 * The consistency levels Dyno refuses before anything is sent, and why: the one place for that
 * fact, read by the per-call options and by the client-wide setting.
 */
public final class ConsistencyRefusal {
  /**
   * Why {@link ConsistencyLevel#DC_EACH_SAFE_QUORUM} is refused. Found in Dynomite's source and on
   * a real two-datacenter cluster (v0.6.21-rc2): see docs/multi-region.md.
   */
  static final String EACH_SAFE_QUORUM_REASON = "DC_EACH_SAFE_QUORUM is refused: Dynomite"
      + " (v0.6) answers it \"Failed to achieve Quorum\" on every cluster of two or more"
      + " datacenters whose peer links are not encrypted (secure_server_option: none, its"
      + " default), because it checksums a remote datacenter's replies together with their peer"
      + " headers, which never match; and with encrypted links it never answers while a"
      + " datacenter is unreachable. Use DC_SAFE_QUORUM (a safe quorum of the local datacenter);"
      + " see docs/multi-region.md";

  private ConsistencyRefusal() {}

  /**
   * Why a level is refused.
   *
   * @param level a level, or null (the server's default)
   * @return the reason, or null when the level may be used
   */
  public static String reason(ConsistencyLevel level) {
    return level == ConsistencyLevel.DC_EACH_SAFE_QUORUM ? EACH_SAFE_QUORUM_REASON : null;
  }

  /**
   * The level, if Dyno sends it.
   *
   * @param level a level, or null (the server's default)
   * @return {@code level}
   * @throws IllegalArgumentException naming the level and the reason when it is refused
   */
  public static ConsistencyLevel check(ConsistencyLevel level) {
    String why = reason(level);
    if (why != null) {
      throw new IllegalArgumentException(why);
    }
    return level;
  }
}
