package io.dyno.companion.diff;

import static io.dyno.companion.diff.Steps.WAIT;
import static io.dyno.companion.diff.Steps.http;
import static io.dyno.companion.diff.Steps.redisState;
import static io.dyno.companion.diff.Steps.resp;
import static io.dyno.companion.diff.Steps.respSeq;
import static io.dyno.companion.diff.Steps.sorted;
import static io.dyno.companion.diff.Wire.cmd;
import static io.dyno.companion.diff.Wire.concat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The broad conversation: good commands of every type (owner local and forwarded), data errors,
 * unsupported commands, inline commands, the consistency command (good, bad, lower case, with
 * commands pipelined behind it), MGET/DEL/MSET/EXISTS across nodes, hash tags, EVAL/EVALSHA/SCRIPT,
 * KEYS/SCAN, the reads that store and what every node's Redis holds after them, node states, every
 * admin endpoint, argument shapes Dynomite refuses, and a GET forwarded to a hung owner.
 */
final class DifferentialConversation {
  /** Keys placed by hash tag: {foo} hashes to token 0's node, {bar} to token 2^31-1's. */
  private static final int N0 = 0;

  private static final int N1 = 1;

  private DifferentialConversation() {}

  static Conversation conversation() {
    return new Conversation(
        "differential",
        "commands of every type, errors, consistency, admin endpoints, "
            + "reads that store, a hung owner",
        DifferentialConversation::warmUp,
        steps());
  }

  /**
   * Not recorded: the companion connects to peers and Redis lazily, and its first requests run cold
   * code; a slow first reply must not read as "no reply".
   */
  private static void warmUp(Target t) {
    Steps.flushAll(t);
    for (int i = 0; i < t.size(); i++) {
      Wire.exchange(
          t.clientPort(i), concat(cmd("GET", "{foo}warm"), cmd("GET", "{bar}warm")), 2, 10_000);
    }
  }

  private static List<Step> steps() {
    List<Step> c = new ArrayList<>();
    // good commands of each type, owner local (N0) and forwarded (keys of N1 through N0)
    c.add(resp(
        "strings",
        N0,
        cmd("SET", "{foo}s", "hello"),
        cmd("GET", "{foo}s"),
        cmd("APPEND", "{foo}s", "_w"),
        cmd("GETRANGE", "{foo}s", "0", "2"),
        cmd("STRLEN", "{foo}s"),
        cmd("SETRANGE", "{foo}s", "0", "J"),
        cmd("GETSET", "{foo}s", "x"),
        cmd("SETNX", "{foo}s", "y"),
        cmd("INCR", "{bar}n"),
        cmd("INCRBY", "{bar}n", "5"),
        cmd("DECR", "{bar}n"),
        cmd("DECRBY", "{bar}n", "2"),
        cmd("INCRBYFLOAT", "{bar}f", "1.5"),
        cmd("SETBIT", "{bar}b", "7", "1"),
        cmd("GETBIT", "{bar}b", "7"),
        cmd("BITCOUNT", "{bar}b"),
        cmd("SETEX", "{foo}e", "100", "v"),
        cmd("PERSIST", "{foo}e"),
        cmd("TTL", "{foo}e"),
        cmd("PTTL", "{foo}e"),
        cmd("EXPIRE", "{foo}e", "100"),
        cmd("TYPE", "{foo}e"),
        cmd("GET", "nosuchkey")));
    c.add(resp(
        "hashes",
        N0,
        cmd("HSET", "{foo}h", "f1", "v1"),
        cmd("HMSET", "{foo}h", "f2", "v2"),
        cmd("HGET", "{foo}h", "f1"),
        cmd("HMGET", "{foo}h", "f1", "zz", "f2"),
        cmd("HLEN", "{foo}h"),
        cmd("HEXISTS", "{foo}h", "f2"),
        cmd("HINCRBY", "{foo}h", "c", "3"),
        cmd("HINCRBYFLOAT", "{foo}h", "d", "0.5"),
        cmd("HSETNX", "{foo}h", "f1", "x"),
        cmd("HMSET", "{bar}h", "a", "1"),
        cmd("HDEL", "{foo}h", "f2"),
        cmd("HKEYS", "{foo}h"),
        cmd("HVALS", "{foo}h"),
        cmd("HGETALL", "{bar}h"),
        cmd("HSCAN", "{foo}h", "0")));
    c.add(resp(
        "lists",
        N0,
        cmd("RPUSH", "{bar}l", "a", "b", "c"),
        cmd("LPUSH", "{bar}l", "z"),
        cmd("LRANGE", "{bar}l", "0", "-1"),
        cmd("LLEN", "{bar}l"),
        cmd("LINDEX", "{bar}l", "1"),
        cmd("LSET", "{bar}l", "0", "y"),
        cmd("LINSERT", "{bar}l", "BEFORE", "b", "q"),
        cmd("LREM", "{bar}l", "0", "q"),
        cmd("LPOP", "{bar}l"),
        cmd("RPOP", "{bar}l"),
        cmd("RPOPLPUSH", "{bar}l", "{bar}l2"),
        cmd("LTRIM", "{bar}l", "0", "0"),
        cmd("LPUSHX", "{bar}l", "w"),
        cmd("RPUSHX", "{bar}none", "w"),
        cmd("LRANGE", "{bar}l2", "0", "-1")));
    c.add(resp(
        "sets (integer members: Redis keeps them sorted)",
        N0,
        cmd("SADD", "{foo}s1", "3", "1", "2"),
        cmd("SADD", "{foo}s2", "2", "4"),
        cmd("SCARD", "{foo}s1"),
        cmd("SISMEMBER", "{foo}s1", "2"),
        cmd("SMEMBERS", "{foo}s1"),
        cmd("SINTER", "{foo}s1", "{foo}s2"),
        cmd("SUNION", "{foo}s1", "{foo}s2"),
        cmd("SDIFF", "{foo}s1", "{foo}s2"),
        cmd("SREM", "{foo}s1", "9"),
        cmd("SMOVE", "{foo}s2", "{foo}s3", "4"),
        cmd("SSCAN", "{foo}s1", "0")));
    c.add(resp(
        "sorted sets",
        N0,
        cmd("ZADD", "{bar}z1", "1", "a", "2", "b", "3", "c"),
        cmd("ZADD", "{bar}z2", "5", "b"),
        cmd("ZRANGE", "{bar}z1", "0", "-1", "WITHSCORES"),
        cmd("ZSCORE", "{bar}z1", "b"),
        cmd("ZRANK", "{bar}z1", "c"),
        cmd("ZREVRANK", "{bar}z1", "c"),
        cmd("ZINCRBY", "{bar}z1", "2", "a"),
        cmd("ZCOUNT", "{bar}z1", "2", "3"),
        cmd("ZCARD", "{bar}z1"),
        cmd("ZRANGEBYSCORE", "{bar}z1", "2", "+inf"),
        cmd("ZREVRANGE", "{bar}z1", "0", "0"),
        cmd("ZLEXCOUNT", "{bar}z1", "-", "+"),
        cmd("ZREM", "{bar}z1", "nope"),
        cmd("ZSCAN", "{bar}z1", "0")));
    c.add(resp(
        "geo, hyperloglog, dump",
        N0,
        cmd(
            "GEOADD",
            "{foo}g",
            "13.361389",
            "38.115556",
            "Palermo",
            "15.087269",
            "37.502669",
            "Catania"),
        cmd("GEODIST", "{foo}g", "Palermo", "Catania", "km"),
        cmd("GEOHASH", "{foo}g", "Palermo"),
        cmd("GEORADIUS", "{foo}g", "15", "37", "200", "km"),
        cmd("PFADD", "{bar}hll", "a", "b", "c"),
        cmd("PFCOUNT", "{bar}hll"),
        cmd("DUMP", "{foo}s")));
    c.add(resp(
        "the same keys read through another rack's node",
        3,
        cmd("GET", "{foo}s"),
        cmd("HGET", "{foo}h", "f1"),
        cmd("LRANGE", "{bar}l", "0", "-1"),
        cmd("ZSCORE", "{bar}z1", "a")));

    // data errors
    c.add(resp(
        "data errors",
        N0,
        cmd("LPUSH", "{foo}s", "x"),
        cmd("INCR", "{foo}s"),
        cmd("SET", "{foo}x", "v", "BADOPT"),
        cmd("HINCRBY", "{foo}h", "f1", "1"),
        cmd("ZADD", "{bar}z1", "notanumber", "a"),
        cmd("EXPIRE", "{foo}s", "abc"),
        cmd("LINDEX", "{bar}l", "x"),
        cmd("GET", "{foo}h"),
        cmd("PING")));

    // unsupported commands: Dynomite closes at once, dropping replies still owed on the connection
    for (String[] u : List.of(
        new String[] {"ECHO", "x"},
        new String[] {"SELECT", "1"},
        new String[] {"MULTI"},
        new String[] {"FLUSHALL"},
        new String[] {"GETDEL", "{foo}s"},
        new String[] {"UNLINK", "{foo}s"},
        new String[] {"RENAME", "{foo}s", "{foo}t"},
        new String[] {"CLIENT", "SETINFO", "lib-name", "x"},
        new String[] {"NOSUCHCOMMAND"})) {
      c.add(resp("unsupported " + u[0], N0, cmd(u)));
    }
    c.add(resp(
        "unsupported behind good ones in one write",
        N0,
        concat(cmd("PING"), cmd("GET", "{foo}s"), cmd("ECHO", "x"), cmd("PING"))));
    c.add(respSeq(
        "unsupported after a good one was answered",
        N0,
        List.of(cmd("GET", "{foo}s"), cmd("ECHO", "x"))));
    c.add(resp("inline GET", N0, "GET {foo}s\r\n".getBytes(StandardCharsets.US_ASCII)));
    c.add(resp("inline PINGs", N0, "PING\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII)));
    c.add(resp("QUIT answers then closes", N0, cmd("QUIT")));

    // the consistency command
    String cc = "DYNO_CONFIG:CONN_CONSISTENCY";
    c.add(respSeq(
        "consistency DC_QUORUM, then reads and writes",
        N0,
        List.of(
            cmd(cc, "DC_QUORUM"),
            concat(cmd("GET", "{foo}s"), cmd("SET", "{bar}q", "1"), cmd("GET", "{bar}q")))));
    c.add(respSeq(
        "consistency lower case level and command",
        N0,
        List.of(cmd(cc.toLowerCase(), "dc_safe_quorum"), cmd("GET", "{foo}s"))));
    c.add(respSeq(
        "consistency DC_EACH_SAFE_QUORUM",
        N0,
        List.of(cmd(cc, "DC_EACH_SAFE_QUORUM"), cmd("GET", "{foo}s"))));
    c.add(respSeq("consistency DC_ONE", N0, List.of(cmd(cc, "DC_ONE"), cmd("GET", "{foo}s"))));
    c.add(resp("consistency bad level", N0, cmd(cc, "DC_BOGUS")));
    c.add(resp(
        "consistency bad level behind a PING in one write",
        N0,
        concat(cmd("PING"), cmd(cc, "DC_BOGUS"))));
    c.add(resp(
        "consistency with commands pipelined behind it: dropped",
        N0,
        concat(cmd(cc, "DC_QUORUM"), cmd("GET", "{foo}s"), cmd("PING"))));
    c.add(resp(
        "a PING, then consistency, then a GET, in one write",
        N0,
        concat(cmd("PING"), cmd(cc, "DC_ONE"), cmd("GET", "{foo}s"))));

    // MGET / DEL / MSET / EXISTS across nodes, through both nodes
    for (int via : new int[] {N0, N1}) {
      c.add(resp(
          "MSET/MGET/EXISTS/DEL across nodes via node " + via,
          via,
          cmd("MSET", "{foo}m1", "1", "{bar}m2", "2", "m3", "3", "{user1}:a", "4"),
          cmd("MGET", "{foo}m1", "{bar}m2", "m3", "nokey", "{user1}:a", "{foo}s"),
          cmd("EXISTS", "{foo}m1", "{bar}m2", "nokey", "m3"),
          cmd("DEL", "{foo}m1", "{bar}m2", "nokey"),
          cmd("MGET", "{foo}m1", "{bar}m2", "m3"),
          cmd("DEL", "m3", "{user1}:a")));
    }

    // hash tags
    c.add(resp(
        "hash tags keep {user1} keys together",
        N0,
        cmd("SET", "{user1}:a", "a"),
        cmd("SET", "{user1}:d", "d"),
        cmd("SET", "user1", "u"),
        cmd("MGET", "{user1}:a", "{user1}:d", "user1"),
        cmd(
            "EVAL",
            "return redis.call('MGET', KEYS[1], KEYS[2], KEYS[3])",
            "3",
            "{user1}:a",
            "{user1}:d",
            "user1")));

    // EVAL / EVALSHA / SCRIPT
    String script = "return redis.call('GET', KEYS[1])";
    String sha = sha1(script);
    c.add(resp(
        "EVAL one key, keys on several nodes, tagged keys",
        N0,
        cmd("EVAL", script, "1", "{foo}s"),
        cmd("EVAL", script, "2", "{foo}s", "{bar}n"),
        cmd("EVAL", script, "1", "{bar}n")));
    c.add(resp("EVAL without keys", N0, cmd("EVAL", "return 1", "0")));
    c.add(resp(
        "SCRIPT LOAD / EXISTS", N0, cmd("SCRIPT", "LOAD", script), cmd("SCRIPT", "EXISTS", sha)));
    c.add(redisState("which Redis holds the loaded script", t -> {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < t.size(); i++) {
        sb.append(t.label(i))
            .append('=')
            .append(Wire.exchange(t.redisPort(i), cmd("SCRIPT", "EXISTS", sha), 1, WAIT)
                .text()
                .trim()
                .replace("\r\n", " "))
            .append(' ');
      }
      return sb.toString();
    }));
    c.add(resp(
        "EVALSHA one key, keys on several nodes (not checked), unknown sha",
        N0,
        cmd("EVALSHA", sha, "1", "{foo}s"),
        cmd("EVALSHA", sha, "2", "{foo}s", "{bar}n"),
        cmd("EVALSHA", sha, "2", "{bar}n", "{foo}s"),
        cmd("EVALSHA", "0000000000000000000000000000000000000000", "1", "{foo}s")));
    c.add(resp("EVALSHA without keys", N0, cmd("EVALSHA", sha, "0")));

    // KEYS and SCAN: the connected node's own keys only
    for (int via : new int[] {N0, N1, 2}) {
      c.add(sorted(resp(
          "KEYS and SCAN on node " + via,
          via,
          cmd("KEYS", "*"),
          cmd("KEYS", "{foo}*"),
          cmd("SCAN", "0", "COUNT", "1000"),
          cmd("SCAN", "0", "MATCH", "{bar}*", "COUNT", "1000"))));
    }

    // reads that store: Dynomite treats them as reads, so other racks never get the result
    c.add(resp(
        "SORT/SUNIONSTORE/ZINTERSTORE/ZUNIONSTORE/GEORADIUS(BYMEMBER) STORE and real writes",
        N0,
        cmd("RPUSH", "{foo}src", "3", "1", "2"),
        cmd("SORT", "{foo}src", "STORE", "{foo}sorted"),
        cmd("SUNIONSTORE", "{foo}su", "{foo}s1", "{foo}s3"),
        cmd("ZINTERSTORE", "{bar}zi", "2", "{bar}z1", "{bar}z2"),
        cmd("ZUNIONSTORE", "{bar}zu", "2", "{bar}z1", "{bar}z2"),
        cmd("GEORADIUS", "{foo}g", "15", "37", "200", "km", "STORE", "{foo}gr"),
        cmd("GEORADIUSBYMEMBER", "{foo}g", "Palermo", "200", "km", "STORE", "{foo}gm"),
        cmd("SINTERSTORE", "{foo}si", "{foo}s1", "{foo}s3"),
        cmd("SDIFFSTORE", "{foo}sd", "{foo}s1", "{foo}s3")));
    c.add(redisState("what every node's Redis holds", Steps::keysPerNode));

    // the admin port, raw HTTP
    c.add(http("/ping", N0, "/ping"));
    c.add(http("/get_consistency", N0, "/get_consistency"));
    c.add(http("/set_consistency/read/dc_quorum", N0, "/set_consistency/read/dc_quorum"));
    c.add(
        http("/set_consistency/write/DC_SAFE_QUORUM", N0, "/set_consistency/write/DC_SAFE_QUORUM"));
    c.add(http("/get_consistency after setting", N0, "/get_consistency"));
    c.add(http("/set_consistency/read/bogus", N0, "/set_consistency/read/bogus"));
    c.add(http("/set_consistency/sideways/dc_one", N0, "/set_consistency/sideways/dc_one"));
    c.add(http("/get_consistency after bad requests", N0, "/get_consistency"));
    c.add(http("/set_consistency/read/dc_one", N0, "/set_consistency/read/dc_one"));
    c.add(http("/set_consistency/write/dc_one", N0, "/set_consistency/write/dc_one"));
    c.add(http("/state/get_state", N0, "/state/get_state"));
    c.add(http("/state/NORMAL (upper case)", N0, "/state/NORMAL"));
    c.add(http("/state/bogus", N0, "/state/bogus"));
    c.add(http("/state/writes_only", N0, "/state/writes_only"));
    c.add(http("/state/get_state in writes_only", N0, "/state/get_state"));
    c.add(resp(
        "reads and writes in writes_only",
        N0,
        cmd("GET", "{foo}s"),
        cmd("SET", "{foo}w", "1"),
        cmd("PING")));
    c.add(http("/state/standby", N0, "/state/standby"));
    c.add(resp(
        "reads and writes in standby",
        N0,
        cmd("GET", "{foo}s"),
        cmd("SET", "{foo}w", "1"),
        cmd("PING")));
    // {foo} is token 0: N0's replicas are rack2's node 0 (index 2) and rack3's (index 4).
    c.add(new Step("a write replicated to a node in standby is dropped there", t -> {
      String reply =
          Wire.exchange(t.clientPort(2), cmd("SET", "{foo}sb", "1"), 1, WAIT).describe(WAIT);
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (!exists(t, 4, "{foo}sb") && System.nanoTime() < deadline) {
        Wire.pause(20); // poll interval of a bounded wait for rack3's copy
      }
      return reply + " rack3 holds it: " + exists(t, 4, "{foo}sb") + ", the standby node: "
          + exists(t, N0, "{foo}sb");
    }));
    c.add(http("/state/normal", N0, "/state/normal"));
    c.add(http("/state/get_state back to normal", N0, "/state/get_state"));
    c.add(http("unknown path", N0, "/no/such/endpoint"));
    c.add(http("/", N0, "/"));
    c.add(http("/help", N0, "/help"));
    c.add(http("/get_timeout_factor", N0, "/get_timeout_factor"));
    c.add(http("/cluster_describe (peer ports named)", N0, "/cluster_describe"));
    c.add(http("/cluster_describe from another rack", 5, "/cluster_describe"));
    c.add(http("/info (key names and nesting)", N0, "/info"));

    // Argument shapes Dynomite refuses, last: after some of them (PING with an argument, HSET with
    // several pairs) real Dynomite fails the next requests to its local Redis with "Storage:
    // Datastore refused connection" for a while, which would spoil the steps after them.
    c.add((resp("consistency without a level: Dynomite waits", N0, cmd(cc))));
    c.add((resp("consistency with an extra argument", N0, cmd(cc, "DC_ONE", "extra"))));
    c.add((resp("MSET with an odd argument count", N0, cmd("MSET", "{foo}a", "1", "{bar}b"))));
    c.add((resp("GET without a key: Dynomite waits", N0, cmd("GET"))));
    c.add((resp("SCRIPT DEBUG: Dynomite waits", N0, cmd("SCRIPT", "DEBUG", "NO"))));
    c.add((resp(
        "HSET with several field/value pairs",
        N1,
        cmd("HSET", "{bar}hh", "f1", "v1", "f2", "v2"))));
    c.add((resp("PING with an argument", N1, cmd("PING", "hi"))));
    // A hung owner (the process stopped, its sockets open): the node forwarding to it answers after
    // its
    // peer timeout. Last, because a real Dynomite takes seconds to use a resumed peer again.
    c.add(new Step("GET forwarded to a hung owner", t -> {
      Wire.exchange(t.clientPort(N0), cmd("SET", "{bar}p", "1"), 1, WAIT);
      t.pause(N1);
      try {
        return Wire.exchange(t.clientPort(N0), cmd("GET", "{bar}p"), 1, 30_000).describe(30_000);
      } finally {
        t.resume(N1);
      }
    }));
    return c;
  }

  private static boolean exists(Target t, int node, String key) {
    return Wire.exchange(t.redisPort(node), cmd("EXISTS", key), 1, WAIT).text().equals(":1\r\n");
  }

  private static String sha1(String s) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-1").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
