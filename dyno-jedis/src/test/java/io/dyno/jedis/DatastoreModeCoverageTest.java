package io.dyno.jedis;

import io.dyno.jedis.testing.RedisServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.Jedis;

/** The command-coverage suite in datastore mode: straight to the nodes' own redis-server processes. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatastoreModeCoverageTest extends CommandCoverageContract {
  private RedisServers redis;
  private DynoJedisClient client;

  @BeforeAll
  void start() throws Exception {
    redis = new RedisServers(3, 2);
    client = DynoJedisClient.builder()
        .applicationName("coverage-datastore")
        .hostSupplier(redis::hosts)
        .tokenMapSupplier(hosts -> redis.tokens())
        .localRack("rack1")
        .hashtag("{}")
        .datastoreMode(true)
        .build();
  }

  @AfterAll
  void stop() {
    if (client != null) {
      client.close();
    }
    if (redis != null) {
      redis.close();
    }
  }

  @Override
  boolean dynomiteShapes() {
    return false;
  }

  @Override
  DynoJedisClient client() {
    return client;
  }

  @Override
  void afterEachCommandFamily() {
    for (int port : redis.ports()) {
      try (Jedis j = new Jedis("127.0.0.1", port)) {
        j.flushAll();
      }
    }
  }
}
