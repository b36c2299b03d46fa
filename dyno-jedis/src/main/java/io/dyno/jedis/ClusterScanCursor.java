package io.dyno.jedis;

import io.dyno.jedis.internal.ClusterScan;

/** A {@link ClusterScan} as the public {@link ClusterScanIterator}. */
final class ClusterScanCursor implements ClusterScanIterator {
  private final ClusterScan scan;

  ClusterScanCursor(ClusterScan scan) {
    this.scan = scan;
  }

  @Override
  public boolean hasNext() {
    return scan.hasNext();
  }

  @Override
  public byte[] next() {
    return scan.next();
  }

  @Override
  public int rangesDone() {
    return scan.rangesDone();
  }

  @Override
  public int failovers() {
    return scan.failovers();
  }
}
