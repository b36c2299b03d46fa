package io.dyno.jedis;

/** How a {@link DynoJedisClient} carries commands to a node (see {@link DynoJedisClientBuilder#transport}). */
public enum Transport {
  /**
   * A Jedis socket per borrower, pooled per node: one caller's command per round trip. For TLS given
   * only as an {@code SSLSocketFactory}, or when every caller should have a socket of its own.
   */
  POOLED,
  /**
   * The default. One long-lived Netty connection per node (and consistency level) shared by every
   * caller: commands from many threads leave in one write and share a round trip (implicit
   * pipelining), which is what saves the servers' CPU. TLS needs an SSLContext
   * ({@link DynoJedisClientBuilder#tlsContext(javax.net.ssl.SSLContext)}) or the JVM default. Commands
   * that block a connection until answered (datastore mode's BLPOP ...) run on a socket of their own.
   */
  MULTIPLEXED
}
