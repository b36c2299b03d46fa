package io.dyno.companion.internal;

import java.util.HashMap;
import java.util.Map;

/** How Dynomite treats each command name (upper case). Names not listed close the connection. */
final class Commands {
  enum Kind {
    /** Routed by the key at argument 1 to its owner; replicated when a write. */
    KEY,
    /** Like KEY but read from the local rack's owner only, whatever the consistency. */
    KEY_LOCAL_RACK,
    /** Several keys (every {@code step}-th argument from 1), split per owner: MGET DEL EXISTS MSET. */
    MULTI,
    /** EVAL: keys from numkeys, all on one node (else an error). */
    EVAL,
    /** EVALSHA: routed by its first key; Dynomite does not check that the keys share a node. */
    EVALSHA,
    /** SCRIPT LOAD/EXISTS/FLUSH/KILL: run on every node. */
    SCRIPT,
    /** Runs on the node you are connected to only: KEYS SCAN INFO. */
    LOCAL,
    PING,
    QUIT,
    /** CONFIG GET is local; any other CONFIG subcommand closes the connection. */
    CONFIG,
    CONSISTENCY,
    UNSUPPORTED
  }

  record Spec(Kind kind, boolean write, int step) {}

  static final String CONSISTENCY_COMMAND = "DYNO_CONFIG:CONN_CONSISTENCY";

  private static final Map<String, Spec> TABLE = new HashMap<>();

  private static void put(Kind kind, boolean write, String names) {
    for (String n : names.trim().split("\\s+")) {
      TABLE.put(n, new Spec(kind, write, 1));
    }
  }

  static {
    // Reads and writes as Dynomite's parser classifies them (is_read), not as Redis documents them:
    // a
    // "read" goes to the local rack's owner only (every rack at DC_QUORUM) and is never replicated,
    // so
    // SORT ... STORE, SUNIONSTORE, ZINTERSTORE, ZUNIONSTORE and GEORADIUS(BYMEMBER) ... STORE
    // change
    // only the racks that served them; TTL and PFCOUNT count as writes (replicated, write
    // consistency).
    // Names Dynomite's parser does not know (GETDEL, LMOVE, UNLINK, ...) are absent: they close.
    put(Kind.KEY, false, """
        GET STRLEN GETRANGE GETBIT BITCOUNT PTTL TYPE DUMP SORT
        HGET HMGET HEXISTS HLEN
        LLEN LRANGE LINDEX
        SCARD SISMEMBER SMEMBERS SRANDMEMBER SINTER SUNION SDIFF SUNIONSTORE
        ZCARD ZCOUNT ZLEXCOUNT ZRANGE ZRANGEBYSCORE ZRANGEBYLEX ZREVRANGE ZREVRANGEBYSCORE ZREVRANGEBYLEX
        ZRANK ZREVRANK ZSCORE ZINTERSTORE ZUNIONSTORE
        GEODIST GEOHASH GEOPOS GEORADIUS GEORADIUSBYMEMBER
        JSON.GET JSON.MGET JSON.TYPE JSON.STRLEN JSON.ARRLEN JSON.OBJKEYS JSON.OBJLEN JSON.RESP
        """);
    put(Kind.KEY, true, """
        SET SETEX PSETEX SETNX GETSET APPEND SETRANGE SETBIT INCR INCRBY INCRBYFLOAT DECR DECRBY
        EXPIRE EXPIREAT PEXPIRE PEXPIREAT PERSIST TTL RESTORE
        HSET HSETNX HMSET HDEL HINCRBY HINCRBYFLOAT
        LPUSH LPUSHX RPUSH RPUSHX LPOP RPOP LSET LREM LTRIM LINSERT RPOPLPUSH
        SADD SREM SPOP SMOVE SINTERSTORE SDIFFSTORE
        ZADD ZINCRBY ZREM ZREMRANGEBYSCORE ZREMRANGEBYRANK ZREMRANGEBYLEX
        GEOADD PFADD PFCOUNT
        JSON.SET JSON.DEL JSON.FORGET JSON.NUMINCRBY JSON.NUMMULTBY JSON.STRAPPEND JSON.ARRAPPEND JSON.ARRINSERT
        JSON.ARRPOP JSON.ARRTRIM JSON.CLEAR JSON.TOGGLE
        """);
    put(Kind.KEY_LOCAL_RACK, false, "HGETALL HKEYS HVALS HSCAN SSCAN ZSCAN");
    put(Kind.MULTI, false, "MGET EXISTS");
    put(Kind.MULTI, true, "DEL");
    TABLE.put("MSET", new Spec(Kind.MULTI, true, 2));
    put(Kind.EVAL, true, "EVAL");
    put(Kind.EVALSHA, true, "EVALSHA");
    put(Kind.SCRIPT, false, "SCRIPT");
    put(Kind.LOCAL, false, "KEYS SCAN INFO");
    put(Kind.PING, false, "PING");
    put(Kind.QUIT, false, "QUIT");
    put(Kind.CONFIG, false, "CONFIG");
    put(Kind.CONSISTENCY, false, CONSISTENCY_COMMAND);
  }

  private static final Spec UNSUPPORTED = new Spec(Kind.UNSUPPORTED, false, 1);

  private Commands() {}

  static Spec lookup(String upperName) {
    return TABLE.getOrDefault(upperName, UNSUPPORTED);
  }
}
