package io.dyno.companion;

/** Where a companion node keeps its data. */
public enum Backend {
  /** In-process store (strings, hashes, lists, sets, sorted sets, expiry, SCAN/KEYS). */
  MEMORY,
  /** A real {@code redis-server} per node; the node proxies commands to it over a socket. */
  REDIS
}
