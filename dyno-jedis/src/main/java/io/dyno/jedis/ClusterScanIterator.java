package io.dyno.jedis;

import java.util.Iterator;

/**
 * A cluster-wide SCAN (see {@link DynoJedisClient#scanIterator}): every key of the cluster once,
 * one replica per token range, local rack first. When a range's node fails mid-scan the range
 * continues on its replica in the next rack; keys already returned are not returned again.
 */
public interface ClusterScanIterator extends Iterator<byte[]> {
  /** {@return the token ranges scanned to their end so far} */
  int rangesDone();

  /** {@return how many times a range moved to another replica after its node failed} */
  int failovers();
}
