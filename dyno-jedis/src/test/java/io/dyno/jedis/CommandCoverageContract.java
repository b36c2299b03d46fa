package io.dyno.jedis;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.GeoCoordinate;
import redis.clients.jedis.args.ExpiryOption;
import redis.clients.jedis.args.GeoUnit;
import redis.clients.jedis.args.ListPosition;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.clients.jedis.resps.Tuple;

/**
 * Every command family through {@link DynoJedisClient}, string and binary, against a real cluster
 * of 3 racks x 2 nodes with hashtag "{}". Subclasses provide the cluster (through the companion
 * server, or straight to Redis) and may check the servers after each test.
 */
abstract class CommandCoverageContract {

  /** The client under test (local rack "rack1"). */
  abstract DynoJedisClient client();

  /** True through Dynomite (or the companion); false straight to Redis (datastore mode), where Redis's rules apply. */
  boolean dynomiteShapes() {
    return true;
  }

  /** Set by tests whose commands must be refused by the client without reaching any server. */
  boolean refusedWithoutTraffic;

  /** Checked after every test (e.g. no request was forwarded between nodes). */
  void afterEachCommandFamily() {}

  @AfterEach
  void checkServers() {
    try {
      afterEachCommandFamily();
    } finally {
      refusedWithoutTraffic = false;
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void stringsWorkWithStringAndBinaryKeys() {
    DynoJedisClient c = client();
    assertThat(c.set("s:a", "1")).isEqualTo("OK");
    assertThat(c.get("s:a")).isEqualTo("1");
    assertThat(c.incr("s:a")).isEqualTo(2);
    assertThat(c.incrBy("s:a", 10)).isEqualTo(12);
    assertThat(c.decr("s:a")).isEqualTo(11);
    assertThat(c.decrBy("s:a", 5)).isEqualTo(6);
    assertThat(c.incrByFloat("s:f", 1.5)).isEqualTo(1.5);
    assertThat(c.append("s:a", "x")).isEqualTo(2);
    assertThat(c.strlen("s:a")).isEqualTo(2);
    assertThat(c.getrange("s:a", 0, 0)).isEqualTo("6");
    assertThat(c.setrange("s:a", 1, "yz")).isEqualTo(3);
    assertThat(c.getSet("s:a", "new")).isEqualTo("6yz");
    assertThat(c.setnx("s:a", "no")).isZero();
    assertThat(c.setnx("s:b", "yes")).isEqualTo(1);
    assertThat(c.setex("s:ex", 100, "v")).isEqualTo("OK");
    assertThat(c.ttl("s:ex")).isBetween(1L, 100L);
    assertThat(c.psetex("s:pex", 100_000, "v")).isEqualTo("OK");
    assertThat(c.pttl("s:pex")).isBetween(1L, 100_000L);

    byte[] k = {0, (byte) 0xff, 'k', 1};
    byte[] v = {(byte) 0x80, 0, (byte) 0xfe, 7};
    assertThat(c.set(k, v)).isEqualTo("OK");
    assertThat(c.get(k)).isEqualTo(v);
    assertThat(c.strlen(k)).isEqualTo(4);
    assertThat(c.append(k, new byte[] {9})).isEqualTo(5);
    assertThat(c.getrange(k, 4, 4)).isEqualTo(new byte[] {9});
  }

  @Test
  void multiKeyCommandsSpanNodesAndKeepTheCallersOrder() {
    DynoJedisClient c = client();
    String[] keys = new String[40];
    String[] kv = new String[80];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = "m:" + i;
      kv[2 * i] = keys[i];
      kv[2 * i + 1] = "v" + i;
    }
    assertThat(c.mset(kv)).isEqualTo("OK");
    List<String> got = c.mget(keys);
    for (int i = 0; i < keys.length; i++) {
      assertThat(got.get(i)).isEqualTo("v" + i);
    }
    String[] withMissing = Arrays.copyOf(keys, keys.length + 1);
    withMissing[keys.length] = "m:missing";
    assertThat(c.mget(withMissing).get(keys.length)).isNull();
    assertThat(c.exists(withMissing)).isEqualTo(keys.length);
    assertThat(c.del(Arrays.copyOfRange(keys, 0, 10))).isEqualTo(10);
    if (dynomiteShapes()) { // Dynomite closes the connection on UNLINK
      assertThatThrownBy(() -> c.unlink(Arrays.copyOfRange(keys, 10, 20)))
          .isInstanceOf(UnsupportedCommandException.class)
          .hasMessageContaining("UNLINK");
      assertThat(c.del(Arrays.copyOfRange(keys, 10, 20))).isEqualTo(10);
    } else {
      assertThat(c.unlink(Arrays.copyOfRange(keys, 10, 20))).isEqualTo(10);
    }
    assertThat(c.exists(keys)).isEqualTo(20);

    byte[][] bkeys = {b("mb:1"), b("mb:2"), b("mb:3"), b("mb:4"), b("mb:5")};
    assertThat(c.mset(
            bkeys[0], b("1"), bkeys[1], b("2"), bkeys[2], b("3"), bkeys[3], b("4"), bkeys[4],
            b("5")))
        .isEqualTo("OK");
    List<byte[]> bvals = c.mget(bkeys);
    for (int i = 0; i < bkeys.length; i++) {
      assertThat(new String(bvals.get(i), UTF_8)).isEqualTo(String.valueOf(i + 1));
    }
    assertThat(c.del(bkeys)).isEqualTo(5);
  }

  @Test
  void keyCommandsWork() {
    DynoJedisClient c = client();
    c.set("k:a", "v");
    assertThat(c.exists("k:a")).isTrue();
    assertThat(c.type("k:a")).isEqualTo("string");
    assertThat(c.expire("k:a", 100)).isEqualTo(1);
    assertThat(c.ttl("k:a")).isBetween(1L, 100L);
    assertThat(c.persist("k:a")).isEqualTo(1);
    assertThat(c.ttl("k:a")).isEqualTo(-1);
    assertThat(c.pexpire("k:a", 100_000)).isEqualTo(1);
    assertThat(c.pttl("k:a")).isBetween(1L, 100_000L);
    assertThat(c.expireAt("k:a", System.currentTimeMillis() / 1000 + 100)).isEqualTo(1);
    byte[] dumped = c.dump("k:a");
    assertThat(c.restore("k:b", 0, dumped)).isEqualTo("OK");
    assertThat(c.get("k:b")).isEqualTo("v");
    c.rpush("k:list", "3", "1", "2");
    assertThat(c.sort("k:list")).containsExactly("1", "2", "3");
    assertThat(c.del("k:a")).isEqualTo(1);
    assertThat(c.exists("k:a")).isFalse();
    assertThat(c.exists(b("k:b"))).isTrue();
    assertThat(c.type(b("k:list"))).isEqualTo("list");
  }

  @Test
  void hashCommandsWork() {
    DynoJedisClient c = client();
    assertThat(c.hset("h:1", "f1", "v1")).isEqualTo(1);
    Map<String, String> m = new HashMap<>();
    m.put("f2", "v2");
    m.put("f3", "3");
    assertThat(c.hmset("h:1", m)).isEqualTo("OK");
    assertThat(c.hget("h:1", "f1")).isEqualTo("v1");
    assertThat(c.hmget("h:1", "f1", "f2", "nope")).containsExactly("v1", "v2", null);
    assertThat(c.hgetAll("h:1"))
        .containsEntry("f1", "v1")
        .containsEntry("f2", "v2")
        .hasSize(3);
    assertThat(c.hkeys("h:1")).containsExactlyInAnyOrder("f1", "f2", "f3");
    assertThat(c.hvals("h:1")).containsExactlyInAnyOrder("v1", "v2", "3");
    assertThat(c.hlen("h:1")).isEqualTo(3);
    assertThat(c.hexists("h:1", "f1")).isTrue();
    assertThat(c.hincrBy("h:1", "f3", 2)).isEqualTo(5);
    assertThat(c.hincrByFloat("h:1", "f4", 0.5)).isEqualTo(0.5);
    assertThat(c.hsetnx("h:1", "f1", "x")).isZero();
    redisOnly("HSTRLEN", () -> assertThat(c.hstrlen("h:1", "f2")).isEqualTo(2));
    ScanResult<Map.Entry<String, String>> scan = c.hscan("h:1", ScanParams.SCAN_POINTER_START);
    assertThat(scan.getResult()).hasSize(4);
    assertThat(c.hdel("h:1", "f1", "f2")).isEqualTo(2);

    byte[] key = {'h', 0, 1};
    assertThat(c.hset(key, b("f"), new byte[] {1, 2, 3})).isEqualTo(1);
    assertThat(c.hget(key, b("f"))).isEqualTo(new byte[] {1, 2, 3});
    assertThat(c.hgetAll(key)).hasSize(1);
  }

  @Test
  void listCommandsWork() {
    DynoJedisClient c = client();
    assertThat(c.rpush("l:1", "a", "b", "c")).isEqualTo(3);
    assertThat(c.lpush("l:1", "z")).isEqualTo(4);
    assertThat(c.lrange("l:1", 0, -1)).containsExactly("z", "a", "b", "c");
    assertThat(c.llen("l:1")).isEqualTo(4);
    assertThat(c.lindex("l:1", 1)).isEqualTo("a");
    assertThat(c.lset("l:1", 1, "A")).isEqualTo("OK");
    assertThat(c.linsert("l:1", ListPosition.AFTER, "A", "a2")).isEqualTo(5);
    assertThat(c.lrem("l:1", 1, "a2")).isEqualTo(1);
    redisOnly("LPOS", () -> assertThat(c.lpos("l:1", "b")).isEqualTo(2));
    assertThat(c.lpop("l:1")).isEqualTo("z");
    assertThat(c.rpop("l:1")).isEqualTo("c");
    assertThat(c.ltrim("l:1", 0, 0)).isEqualTo("OK");
    assertThat(c.lpushx("l:1", "x")).isEqualTo(2);
    assertThat(c.rpushx("l:none", "x")).isZero();
    // Same-node commands: keys under one hash tag.
    c.rpush("{lt}:src", "1", "2");
    assertThat(c.rpoplpush("{lt}:src", "{lt}:dst")).isEqualTo("2");
    assertThat(c.lrange("{lt}:dst", 0, -1)).containsExactly("2");
    byte[] bk = {'l', (byte) 0xff};
    assertThat(c.rpush(bk, new byte[] {0}, new byte[] {1})).isEqualTo(2);
    assertThat(c.lrange(bk, 0, -1)).containsExactly(new byte[] {0}, new byte[] {1});
  }

  @Test
  void setCommandsWork() {
    DynoJedisClient c = client();
    assertThat(c.sadd("{st}:a", "1", "2", "3")).isEqualTo(3);
    assertThat(c.sadd("{st}:b", "2", "3", "4")).isEqualTo(3);
    assertThat(c.smembers("{st}:a")).containsExactlyInAnyOrder("1", "2", "3");
    assertThat(c.scard("{st}:a")).isEqualTo(3);
    assertThat(c.sismember("{st}:a", "1")).isTrue();
    redisOnly(
        "SMISMEMBER",
        () -> assertThat(c.smismember("{st}:a", "1", "9")).containsExactly(true, false));
    assertThat(c.sinter("{st}:a", "{st}:b")).containsExactlyInAnyOrder("2", "3");
    assertThat(c.sunion("{st}:a", "{st}:b")).containsExactlyInAnyOrder("1", "2", "3", "4");
    assertThat(c.sdiff("{st}:a", "{st}:b")).containsExactly("1");
    assertThat(c.sinterstore("{st}:dst", "{st}:a", "{st}:b")).isEqualTo(2);
    assertThat(c.smove("{st}:a", "{st}:b", "1")).isEqualTo(1);
    assertThat(c.srem("{st}:b", "1")).isEqualTo(1);
    assertThat(c.srandmember("{st}:a")).isIn("2", "3");
    assertThat(c.spop("{st}:a")).isIn("2", "3");
    assertThat(c.sscan("{st}:b", ScanParams.SCAN_POINTER_START).getResult())
        .containsExactlyInAnyOrder("2", "3", "4");
    byte[] bk = {'s', 0};
    assertThat(c.sadd(bk, new byte[] {(byte) 0xff})).isEqualTo(1);
    assertThat(c.smembers(bk)).containsExactly(new byte[] {(byte) 0xff});
  }

  @Test
  void sortedSetCommandsWork() {
    DynoJedisClient c = client();
    assertThat(c.zadd("{zt}:a", 1, "one")).isEqualTo(1);
    assertThat(c.zadd("{zt}:a", Map.of("two", 2.0, "three", 3.0))).isEqualTo(2);
    assertThat(c.zrange("{zt}:a", 0, -1)).containsExactly("one", "two", "three");
    assertThat(c.zrangeWithScores("{zt}:a", 0, 0)).containsExactly(new Tuple("one", 1.0));
    assertThat(c.zscore("{zt}:a", "two")).isEqualTo(2.0);
    assertThat(c.zincrby("{zt}:a", 10, "one")).isEqualTo(11.0);
    assertThat(c.zrank("{zt}:a", "one")).isEqualTo(2);
    assertThat(c.zrevrank("{zt}:a", "one")).isZero();
    assertThat(c.zcount("{zt}:a", 2, 3)).isEqualTo(2);
    assertThat(c.zrangeByScore("{zt}:a", 2, 3)).containsExactly("two", "three");
    assertThat(c.zcard("{zt}:a")).isEqualTo(3);
    c.zadd("{zt}:b", 5, "two");
    assertThat(c.zunionstore("{zt}:u", "{zt}:a", "{zt}:b")).isEqualTo(3);
    assertThat(c.zscore("{zt}:u", "two")).isEqualTo(7.0);
    redisOnly("ZPOPMIN", () -> assertThat(c.zpopmin("{zt}:a")).isEqualTo(new Tuple("two", 2.0)));
    assertThat(c.zrem("{zt}:a", "three")).isEqualTo(1);
    assertThat(c.zremrangeByRank("{zt}:u", 0, 0)).isEqualTo(1);
    byte[] bk = {'z', (byte) 0x81};
    assertThat(c.zadd(bk, 1.5, new byte[] {0, 1})).isEqualTo(1);
    assertThat(c.zrange(bk, 0, -1)).containsExactly(new byte[] {0, 1});
  }

  @Test
  void geoCommandsWork() {
    DynoJedisClient c = client();
    assertThat(c.geoadd("g:1", 13.361389, 38.115556, "Palermo")).isEqualTo(1);
    assertThat(c.geoadd("g:1", 15.087269, 37.502669, "Catania")).isEqualTo(1);
    assertThat(c.geodist("g:1", "Palermo", "Catania", GeoUnit.KM)).isBetween(166.0, 167.0);
    List<GeoCoordinate> pos = c.geopos("g:1", "Palermo");
    assertThat(pos.get(0).getLongitude()).isBetween(13.36, 13.37);
    assertThat(c.geohash("g:1", "Palermo")).hasSize(1);
    assertThat(c.georadius("g:1", 15, 37, 200, GeoUnit.KM)).hasSize(2);
  }

  @Test
  void hyperLogLogCommandsWork() {
    DynoJedisClient c = client();
    assertThat(c.pfadd("{hl}:a", "x", "y", "z")).isEqualTo(1);
    assertThat(c.pfadd("{hl}:b", "z", "w")).isEqualTo(1);
    assertThat(c.pfcount("{hl}:a")).isEqualTo(3);
    redisOnly("PFMERGE", () -> {
      assertThat(c.pfmerge("{hl}:m", "{hl}:a", "{hl}:b")).isEqualTo("OK");
      assertThat(c.pfcount("{hl}:m")).isEqualTo(4);
    });
    assertThat(c.pfadd(b("hlb"), b("q"))).isEqualTo(1);
    assertThat(c.pfcount(b("hlb"))).isEqualTo(1);
  }

  @Test
  void bitmapCommandsWork() {
    DynoJedisClient c = client();
    assertThat(c.setbit("bm:1", 7, true)).isFalse();
    assertThat(c.getbit("bm:1", 7)).isTrue();
    assertThat(c.bitcount("bm:1")).isEqualTo(1);
    redisOnly("BITPOS", () -> assertThat(c.bitpos("bm:1", true)).isEqualTo(7));
    assertThat(c.setbit(b("bm:2"), 0, true)).isFalse();
    assertThat(c.getbit(b("bm:2"), 0)).isTrue();
  }

  @Test
  void scriptsRunOnTheNodeOfTheirKeysAndLoadOnEveryNode() {
    DynoJedisClient c = client();
    Object r = c.eval(
        "redis.call('set', KEYS[1], ARGV[1]); return redis.call('get', KEYS[2])",
        List.of("{sc}:a", "{sc}:b"),
        List.of("1"));
    assertThat(r).isNull();
    assertThat(c.get("{sc}:a")).isEqualTo("1");
    String sha = c.scriptLoad("return redis.call('get', KEYS[1])");
    assertThat(c.scriptExists(List.of(sha))).containsExactly(true);
    assertThat(c.evalsha(sha, List.of("{sc}:a"), List.of())).isEqualTo("1");
    assertThat(c.eval(b("return ARGV[1]"), List.of(b("bin")), List.of(b("x")))).isEqualTo(b("x"));
  }

  @Test
  void sameNodeCommandsWithKeysOnDifferentNodesAreRefusedWithAHashTagHint() {
    DynoJedisClient c = client();
    String other = differentOwner("x:0");
    refusedWithoutTraffic = true;
    assertThatThrownBy(() -> c.sinter("x:0", other))
        .isInstanceOf(CrossNodeKeysException.class)
        .hasMessageContaining("SINTER")
        .hasMessageContaining("hash tag");
    assertThatThrownBy(() -> c.eval("return 1", List.of("x:0", other), List.of()))
        .isInstanceOf(CrossNodeKeysException.class)
        .hasMessageContaining("EVAL");
  }

  @Test
  void shapesDynomiteCannotTakeAreSplitOrRefusedThroughItAndServedStraightToRedis() {
    DynoJedisClient c = client();
    assertThat(c.hset("sh:h", Map.of("a", "1", "b", "2", "c", "3")))
        .isEqualTo(3); // split per pair through Dynomite
    assertThat(c.hset("sh:h", Map.of("a", "1", "d", "4"))).isEqualTo(1);
    assertThat(c.hgetAll("sh:h")).hasSize(4);
    c.geoadd("sh:g", 13.361389, 38.115556, "Palermo");
    List<GeoCoordinate> pos =
        c.geopos("sh:g", "Palermo", "Nowhere"); // split per member through Dynomite
    assertThat(pos).hasSize(2);
    assertThat(pos.get(0)).isNotNull();
    assertThat(pos.get(1)).isNull();
    c.rpush("sh:l", "a", "b", "c");
    c.set("sh:s", "v");
    if (dynomiteShapes()) {
      assertThatThrownBy(() -> c.lpop("sh:l", 2))
          .isInstanceOf(UnsupportedCommandException.class)
          .hasMessageContaining("LPOP with 1 argument after the key");
      assertThatThrownBy(() -> c.expire("sh:s", 100, ExpiryOption.NX))
          .isInstanceOf(UnsupportedCommandException.class)
          .hasMessageContaining("EXPIRE with NX");
      assertThatThrownBy(() -> c.getDel("sh:s"))
          .isInstanceOf(UnsupportedCommandException.class)
          .hasMessageContaining("GETDEL");
      assertThat(c.lpop("sh:l")).isEqualTo("a");
      assertThat(c.get("sh:s")).isEqualTo("v");
    } else {
      assertThat(c.lpop("sh:l", 2)).containsExactly("a", "b");
      assertThat(c.expire("sh:s", 100, ExpiryOption.NX)).isEqualTo(1);
      assertThat(c.getDel("sh:s")).isEqualTo("v");
    }
  }

  @Test
  void transactionsAreRefusedClearly() {
    DynoJedisClient c = client();
    refusedWithoutTraffic = true;
    assertThatThrownBy(c::multi)
        .isInstanceOf(UnsupportedCommandException.class)
        .hasMessageContaining("MULTI")
        .hasMessageContaining("not supported by Dynomite");
  }

  @Test
  void keysAcrossTheClusterFindsEveryMatchingKey() {
    DynoJedisClient c = client();
    for (int i = 0; i < 30; i++) {
      c.set("ks:" + i, "v");
    }
    Set<String> keys = c.keys("ks:*");
    assertThat(keys).hasSize(30);
  }

  @Test
  void pingAndInfoReachANode() {
    DynoJedisClient c = client();
    assertThat(c.ping()).isEqualTo("PONG");
    assertThat(c.info()).isNotEmpty();
  }

  /**
   * A command real Dynomite does not serve (it closes the connection): through Dynomite the client
   * refuses it by name; straight to Redis it is served and checked by {@code call}.
   */
  void redisOnly(String command, ThrowableAssert.ThrowingCallable call) {
    if (dynomiteShapes()) {
      assertThatThrownBy(call)
          .isInstanceOf(UnsupportedCommandException.class)
          .hasMessageContaining(command + " is not served by Dynomite");
    } else {
      try {
        call.call();
      } catch (Throwable t) {
        throw new AssertionError(command + " straight to Redis", t);
      }
    }
  }

  /** A key owned by a different node than {@code key} (in the local rack). */
  String differentOwner(String key) {
    var owner = client().topology().replicas(key).get(0);
    for (int i = 1; ; i++) {
      String k = "x:" + i;
      if (!client().topology().replicas(k).get(0).equals(owner)) {
        return k;
      }
    }
  }
}
