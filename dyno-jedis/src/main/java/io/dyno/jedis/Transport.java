package io.dyno.jedis;

/** How a {@link DynoJedisClient} carries commands to a node (see {@link DynoJedisClient.Builder#transport}). */
public enum Transport {
  /** A Jedis socket per borrower, pooled per node: one caller's command per round trip. */
  POOLED,
  /**
   * A few long-lived Netty connections per node shared by every caller: commands from many threads
   * leave in one write and share a round trip (implicit pipelining). TLS needs an SSLContext
   * ({@link DynoJedisClient.Builder#tlsContext(javax.net.ssl.SSLContext)}) or the JVM default. Commands that
   * hold or change a connection's state (blocking pops, MULTI, SELECT, subscriptions) are refused.
   */
  MULTIPLEXED
}
