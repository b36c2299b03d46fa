package io.dyno.loadgen.target;

import io.dyno.loadgen.bench.Count;
import io.dyno.loadgen.drivers.JedisPoolsDriver;
import java.time.Duration;
import redis.clients.jedis.Jedis;

/** GET + SET calls a redis-server has run, from its {@code INFO commandstats}. */
final class RedisCommandStats {
  private RedisCommandStats() {}

  /** Cumulative GET + SET calls of the redis-server on 127.0.0.1:{@code port}, or n/a naming why it could not be read. */
  static Count getAndSetCalls(int port) {
    try (Jedis j =
        new Jedis("127.0.0.1", port, JedisPoolsDriver.clientConfig(Duration.ofSeconds(2)))) {
      String info = j.info("commandstats");
      return Count.of(calls(info, "get") + calls(info, "set"));
    } catch (RuntimeException e) {
      return Count.na(
          "INFO commandstats of redis-server 127.0.0.1:" + port + " failed: " + e.getMessage());
    }
  }

  /** The {@code calls=} of {@code cmdstat_<command>} in an INFO commandstats reply; 0 when the command never ran. */
  static long calls(String info, String command) {
    String prefix = "cmdstat_" + command + ":";
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(prefix)) {
        int i = line.indexOf("calls=");
        int end = line.indexOf(',', i);
        return Long.parseLong(line.substring(i + 6, end < 0 ? line.length() : end));
      }
    }
    return 0;
  }
}
