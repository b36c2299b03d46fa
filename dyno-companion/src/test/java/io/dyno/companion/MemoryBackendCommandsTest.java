package io.dyno.companion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;

/** The in-memory backend answers like Redis for the data types clients and the demo use. */
@ExtendWith(CompanionClusterExtension.class)
@CompanionClusterConfig(racks = 1, nodesPerRack = 1)
class MemoryBackendCommandsTest {
  private final CompanionCluster cluster;

  MemoryBackendCommandsTest(CompanionCluster cluster) {
    this.cluster = cluster;
  }

  @BeforeEach
  void flush() {
    cluster.flushAll();
  }

  private Jedis j() {
    return Clients.jedis(cluster.node("rack1", 0));
  }

  @Test
  void strings() {
    try (Jedis j = j()) {
      assertThat(j.set("s", "1")).isEqualTo("OK");
      assertThat(j.incrBy("s", 41)).isEqualTo(42);
      assertThat(j.append("s", "x")).isEqualTo(3);
      assertThat(j.get("s")).isEqualTo("42x");
      assertThatThrownBy(() -> j.incr("s"))
          .hasMessage("ERR value is not an integer or out of range");
      assertThat(j.setnx("s", "no")).isZero();
      assertThat(j.set("s", "v", SetParams.setParams().nx())).isNull();
      assertThat(j.getSet("s", "new")).isEqualTo("42x");
      assertThat(j.strlen("s")).isEqualTo(3);
      assertThat(j.getrange("s", 0, 1)).isEqualTo("ne");
      assertThat(j.incrByFloat("f", 1.5)).isEqualTo(1.5);
    }
  }

  @Test
  void expiry() {
    try (Jedis j = j()) {
      j.setex("e", 100, "v");
      assertThat(j.ttl("e")).isBetween(99L, 100L);
      assertThat(j.persist("e")).isEqualTo(1);
      assertThat(j.ttl("e")).isEqualTo(-1);
      assertThat(j.pexpire("e", 1)).isEqualTo(1);
      Clients.await("e expires", Duration.ofSeconds(2), () -> !j.exists("e"));
      assertThat(j.ttl("e")).isEqualTo(-2);
    }
  }

  @Test
  void hashesListsSetsAndSortedSets() {
    try (Jedis j = j()) {
      j.hset("h", "a", "1"); // one pair per HSET: real Dynomite closes the connection on several
      j.hset("h", "b", "2");
      assertThat(j.hgetAll("h")).containsExactlyInAnyOrderEntriesOf(Map.of("a", "1", "b", "2"));
      assertThat(j.hincrBy("h", "a", 5)).isEqualTo(6);
      assertThat(j.hdel("h", "a", "b")).isEqualTo(2);
      assertThat(j.exists("h")).isFalse();

      j.rpush("l", "a", "b", "c");
      j.lpush("l", "z");
      assertThat(j.lrange("l", 0, -1)).containsExactly("z", "a", "b", "c");
      assertThat(j.lpop("l")).isEqualTo("z");
      assertThat(j.llen("l")).isEqualTo(3);
      assertThatThrownBy(() -> j.sadd("l", "x")).hasMessageStartingWith("WRONGTYPE");

      j.sadd("s1", "a", "b", "c");
      j.sadd("s2", "b", "c", "d");
      assertThat(j.sinter("s1", "s2")).containsExactlyInAnyOrder("b", "c");
      assertThat(j.sismember("s1", "a")).isTrue();
      assertThat(j.scard("s2")).isEqualTo(3);

      j.zadd("z", Map.of("a", 1.0, "b", 2.5, "c", 3.0));
      assertThat(j.zrange("z", 0, -1)).containsExactly("a", "b", "c");
      assertThat(j.zrevrange("z", 0, 0)).containsExactly("c");
      assertThat(j.zrangeByScore("z", 2, 3)).containsExactly("b", "c");
      assertThat(j.zscore("z", "b")).isEqualTo(2.5);
      assertThat(j.zincrby("z", 1, "a")).isEqualTo(2.0);
      assertThat(j.zrank("z", "a")).isZero();
      assertThat(j.zcard("z")).isEqualTo(3);
      assertThat(j.type("z")).isEqualTo("zset");
    }
  }

  @Test
  void scanVisitsEveryKeyOnceWithMatch() {
    try (Jedis j = j()) {
      for (int i = 0; i < 50; i++) {
        j.set("scan:" + i, "v");
      }
      j.set("other", "v");
      Set<String> seen = new HashSet<>();
      String cursor = "0";
      int rounds = 0;
      do {
        ScanResult<String> r = j.scan(cursor, new ScanParams().match("scan:*").count(7));
        for (String k : r.getResult()) {
          assertThat(seen.add(k)).as("duplicate " + k).isTrue();
        }
        cursor = r.getCursor();
        rounds++;
      } while (!cursor.equals("0") && rounds < 100);
      assertThat(seen).hasSize(50).allMatch(k -> k.startsWith("scan:"));
      assertThat(rounds).isGreaterThan(1);
      assertThat(j.keys("scan:1?")).hasSize(10);
    }
  }

  @Test
  void pipelinesAreAnsweredInOrder() {
    try (Jedis j = j()) {
      var p = j.pipelined();
      var a = p.set("p1", "1");
      var b = p.incr("p1");
      var c = p.get("p1");
      p.sync();
      assertThat(List.of(a.get(), b.get(), c.get())).containsExactly("OK", 2L, "2");
    }
  }
}
