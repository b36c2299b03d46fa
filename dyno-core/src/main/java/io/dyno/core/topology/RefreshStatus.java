package io.dyno.core.topology;

/**
 * The outcome of the latest topology refresh, for metrics and health checks.
 *
 * @param healthy whether the latest attempt succeeded
 * @param version version of the topology in use (0: none yet)
 * @param lastAttemptNanos ticker time of the latest attempt, or -1 if none
 * @param lastSuccessNanos ticker time of the latest successful attempt, or -1 if none
 * @param consecutiveFailures failed attempts since the last success
 * @param attempts attempts so far
 * @param failures failed attempts so far
 * @param swaps how many times a new topology was swapped in
 * @param lastError why the latest attempt failed, or null when it succeeded
 */
public record RefreshStatus(
    boolean healthy,
    long version,
    long lastAttemptNanos,
    long lastSuccessNanos,
    int consecutiveFailures,
    long attempts,
    long failures,
    long swaps,
    String lastError) {

  static final RefreshStatus NEVER =
      new RefreshStatus(false, 0, -1, -1, 0, 0, 0, 0, "not refreshed yet");
}
