package io.dyno.e2e.containers;

import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/** Plain Jedis connections configured for Dynomite: no CLIENT SETINFO (Dynomite closes on it). */
final class Clients {
  private Clients() {}

  static Jedis jedis(int port, int socketTimeoutMillis) {
    DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
        .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
        .connectionTimeoutMillis(2_000)
        .socketTimeoutMillis(socketTimeoutMillis)
        .build();
    return new Jedis(new HostAndPort("127.0.0.1", port), config);
  }

  static Jedis jedis(int port) {
    return jedis(port, 2_000);
  }

  /** GET through a fresh connection; null when the key is missing or the node does not answer. */
  static String getOrNull(int port, String key) {
    try (Jedis j = jedis(port)) {
      return j.get(key);
    } catch (RuntimeException e) {
      return null;
    }
  }
}
