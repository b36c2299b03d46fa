/** Recipes on a {@code DynoJedisClient}: quorum lock, counters, rate limiter. */
module io.dyno.recipes {
  requires transitive io.dyno.jedis;
  requires org.slf4j;

  exports io.dyno.recipes.counter;
  exports io.dyno.recipes.lock;
  exports io.dyno.recipes.ratelimit;
}
