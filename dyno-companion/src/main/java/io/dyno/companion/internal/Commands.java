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
    /** Several keys (every {@code step}-th argument from 1), split per owner: MGET DEL UNLINK EXISTS TOUCH MSET. */
    MULTI,
    /** EVAL / EVALSHA: keys from numkeys, all on one node. */
    EVAL,
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
    put(Kind.KEY, false, """
        GET STRLEN GETRANGE SUBSTR GETBIT BITCOUNT BITPOS TTL PTTL TYPE DUMP EXPIRETIME PEXPIRETIME
        HGET HMGET HEXISTS HLEN HSTRLEN HRANDFIELD
        LLEN LRANGE LINDEX LPOS
        SCARD SISMEMBER SMISMEMBER SMEMBERS SRANDMEMBER SINTER SUNION SDIFF SINTERCARD
        ZCARD ZCOUNT ZLEXCOUNT ZRANGE ZRANGEBYSCORE ZRANGEBYLEX ZREVRANGE ZREVRANGEBYSCORE ZREVRANGEBYLEX
        ZRANK ZREVRANK ZSCORE ZMSCORE ZRANDMEMBER
        GEODIST GEOHASH GEOPOS GEORADIUS_RO GEORADIUSBYMEMBER_RO GEOSEARCH PFCOUNT
        JSON.GET JSON.MGET JSON.TYPE JSON.STRLEN JSON.ARRLEN JSON.OBJKEYS JSON.OBJLEN JSON.RESP
        """);
    put(Kind.KEY, true, """
        SET SETEX PSETEX SETNX GETSET GETDEL GETEX APPEND SETRANGE SETBIT INCR INCRBY INCRBYFLOAT DECR DECRBY
        EXPIRE EXPIREAT PEXPIRE PEXPIREAT PERSIST RESTORE SORT
        HSET HSETNX HMSET HDEL HINCRBY HINCRBYFLOAT
        LPUSH LPUSHX RPUSH RPUSHX LPOP RPOP LSET LREM LTRIM LINSERT RPOPLPUSH LMOVE
        SADD SREM SPOP SMOVE SINTERSTORE SUNIONSTORE SDIFFSTORE
        ZADD ZINCRBY ZREM ZREMRANGEBYSCORE ZREMRANGEBYRANK ZREMRANGEBYLEX ZUNIONSTORE ZINTERSTORE ZPOPMIN ZPOPMAX
        GEOADD GEORADIUS GEORADIUSBYMEMBER PFADD PFMERGE
        JSON.SET JSON.DEL JSON.FORGET JSON.NUMINCRBY JSON.NUMMULTBY JSON.STRAPPEND JSON.ARRAPPEND JSON.ARRINSERT
        JSON.ARRPOP JSON.ARRTRIM JSON.CLEAR JSON.TOGGLE
        """);
    put(Kind.KEY_LOCAL_RACK, false, "HGETALL HKEYS HVALS HSCAN SSCAN ZSCAN");
    put(Kind.MULTI, false, "MGET EXISTS");
    put(Kind.MULTI, true, "DEL UNLINK TOUCH");
    TABLE.put("MSET", new Spec(Kind.MULTI, true, 2));
    put(Kind.EVAL, true, "EVAL EVALSHA");
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
