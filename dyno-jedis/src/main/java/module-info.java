/** {@code DynoJedisClient}, its asynchronous API and pipelines, on Jedis and (multiplexed) Netty. */
module io.dyno.jedis {
  requires transitive io.dyno.core;
  requires transitive redis.clients.jedis;
  requires org.slf4j;
  requires io.netty.buffer;
  requires io.netty.codec;
  requires io.netty.common;
  requires io.netty.handler;
  requires io.netty.transport;

  exports io.dyno.jedis;
}
