package io.dyno.jedis.internal;

import io.dyno.core.internal.DynomiteCommands;
import io.dyno.jedis.UnsupportedCommandException;
import java.nio.charset.StandardCharsets;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.args.Rawable;

/**
 * What the client knows about each Redis command: how it is routed, whether it may be retried,
 * whether it writes, and whether the server it talks to can serve it at all.
 *
 * <p>Through Dynomite a <em>whitelist</em> of commands and argument shapes applies, the table shared
 * with the companion server ({@link DynomiteCommands}, probed on the real server): Dynomite closes
 * the connection on anything else, so the client refuses it before touching a connection, naming
 * the command and the shape, or splits it when that keeps its meaning (HSET with several pairs,
 * GEOPOS with several members). In datastore mode (straight to Redis) only commands that make no
 * sense on a pooled, sharded connection are refused; Redis's own rules apply to the rest.
 */
public final class CommandTable {

  /** How a command reaches the cluster. */
  public enum Routing {
    /** Keys (one or more) that must all live on one node; routed by the first key. */
    KEYED,
    /** Keys may span nodes: split per owner, merged in the caller's order. */
    SPLIT,
    /** No key: any one node (local rack first). */
    ANY_NODE,
    /** No key: every node (e.g. SCRIPT LOAD, so a failover replica has the script too). */
    EVERY_NODE,
    /** Cluster-wide over one replica per token range, replies merged (KEYS, DBSIZE). */
    EVERY_RANGE
  }

  /** How per-node replies of a {@link Routing#SPLIT} or {@link Routing#EVERY_RANGE} command merge. */
  public enum Merge {
    CONCAT,
    SUM,
    FIRST,
    ALL_TRUE
  }

  /**
   * One command's facts. {@code splitStride > 0}: Dynomite cannot take the command in the shape it was
   * given, so it is sent as one command per {@code splitStride} arguments after the key, all in one
   * pipeline to the key's owner, their replies merged by {@code merge} (HSET with several fields:
   * SUM; GEOPOS with several members: CONCAT).
   */
  public record Spec(
      String name,
      Routing routing,
      Merge merge,
      boolean idempotent,
      boolean write,
      int keyStride,
      int splitStride) {
    public Spec(
        String name,
        Routing routing,
        Merge merge,
        boolean idempotent,
        boolean write,
        int keyStride) {
      this(name, routing, merge, idempotent, write, keyStride, 0);
    }
  }

  /** Whether commands go through Dynomite or straight to each node's Redis. */
  public enum Mode {
    DYNOMITE,
    DATASTORE
  }

  /** Commands with a reason to refuse them in both modes. */
  private static final Map<String, String> ALWAYS_REFUSED = new HashMap<>();

  static {
    String tx =
        "transactions are not supported by Dynomite (and keys of a transaction may live on different nodes);"
            + " use a pipeline, or a Lua script over hash-tagged keys";
    for (String c : new String[] {"MULTI", "EXEC", "DISCARD", "WATCH", "UNWATCH"}) {
      ALWAYS_REFUSED.put(c, tx);
    }
    String pubsub =
        "publish/subscribe is not supported by Dynomite and needs a dedicated connection";
    for (String c : new String[] {
      "SUBSCRIBE",
      "UNSUBSCRIBE",
      "PSUBSCRIBE",
      "PUNSUBSCRIBE",
      "SSUBSCRIBE",
      "SUNSUBSCRIBE",
      "PUBLISH",
      "SPUBLISH",
      "PUBSUB",
      "MONITOR"
    }) {
      ALWAYS_REFUSED.put(c, pubsub);
    }
    String connState = "it changes the state of one pooled connection, and Dynomite closes a"
        + " connection that sends it";
    for (String c :
        new String[] {"HELLO", "CLIENT", "RESET", "QUIT", "READONLY", "READWRITE", "ASKING"}) {
      ALWAYS_REFUSED.put(c, connState);
    }
    // Each says where the setting it would change lives, so the advice leads somewhere.
    ALWAYS_REFUSED.put(
        "SELECT",
        "Dynomite serves database 0 only and closes a connection that sends SELECT; talking"
            + " straight to each node's Redis, set DynoJedisClient.builder().datastoreMode(true)"
            + ".datastoreDatabase(n)");
    ALWAYS_REFUSED.put(
        "AUTH",
        "Dynomite closes a connection that sends AUTH; talking straight to each node's Redis,"
            + " set DynoJedisClient.builder().datastoreMode(true).datastorePassword(...)"
            + " (and datastoreUser(...) for an ACL user)");
    ALWAYS_REFUSED.put(
        "SCAN",
        "a SCAN cursor belongs to one node; use DynoJedisClient.scanAll(...) or scanIteration(...)"
            + " for a cluster-wide scan");
    ALWAYS_REFUSED.put("CLUSTER", "this is not a Redis Cluster");
  }

  /**
   * Commands that may be run again after a failure that left their outcome unknown (sent, no reply).
   * This table, with {@link #idempotent(String, CommandArguments)} for the commands whose arguments
   * decide it, is the only place the client decides idempotency; dyno-core only obeys the flag.
   *
   * <p>The rule: a command is idempotent when running it a second time, after the first run took
   * effect, leaves the same data and does not turn the reply the caller acts on into a different
   * answer. So reads, and writes that set a state (SET, HSET, DEL, SADD, EXPIRE, ...), are
   * idempotent; a count of what changed (DEL's 1 becoming 0) is accepted as the same answer. Not
   * idempotent: anything that adds to what is there (INCR*, APPEND, LPUSH, ZINCRBY, XADD: each run
   * adds again), removes by position or count (LPOP, SPOP, LTRIM 1 -1), returns the value it replaced
   * (GETSET, GETDEL, SET ... GET: a retry returns the value just written), answers "not done" on a
   * retry of what it did (SETNX, SET ... NX, EXPIRE ... NX: a lock taken would read as refused), or
   * fails on a retry (RESTORE, RENAME, COPY). <b>Any command not listed here is not idempotent</b>, in
   * both modes: a command the client does not know is never re-run after it was sent.
   *
   * <p>Relative expiries (EXPIRE, PEXPIRE, SETEX, SET ... EX, GETEX EX) are idempotent: a re-run
   * restarts the time to live from the retry, later by at most the call's deadline, with the same
   * data; that is the same as the caller setting it again a moment later.
   */
  private static final Set<String> IDEMPOTENT = Set.of(
      // reads
      "GET",
      "GETRANGE",
      "SUBSTR",
      "STRLEN",
      "GETBIT",
      "BITCOUNT",
      "BITPOS",
      "BITFIELD_RO",
      "LCS",
      "MGET",
      "EXISTS",
      "TTL",
      "PTTL",
      "EXPIRETIME",
      "PEXPIRETIME",
      "TYPE",
      "DUMP",
      "KEYS",
      "DBSIZE",
      "RANDOMKEY",
      "OBJECT",
      "TOUCH",
      "SORT_RO",
      "HGET",
      "HMGET",
      "HEXISTS",
      "HLEN",
      "HGETALL",
      "HKEYS",
      "HVALS",
      "HSCAN",
      "HSTRLEN",
      "HRANDFIELD",
      "HTTL",
      "HPTTL",
      "HEXPIRETIME",
      "HPEXPIRETIME",
      "LLEN",
      "LRANGE",
      "LINDEX",
      "LPOS",
      "SCARD",
      "SISMEMBER",
      "SMISMEMBER",
      "SMEMBERS",
      "SRANDMEMBER",
      "SINTER",
      "SUNION",
      "SDIFF",
      "SINTERCARD",
      "SSCAN",
      "ZCARD",
      "ZCOUNT",
      "ZLEXCOUNT",
      "ZRANGE",
      "ZRANGEBYSCORE",
      "ZRANGEBYLEX",
      "ZREVRANGE",
      "ZREVRANGEBYSCORE",
      "ZREVRANGEBYLEX",
      "ZRANK",
      "ZREVRANK",
      "ZSCORE",
      "ZMSCORE",
      "ZSCAN",
      "ZRANDMEMBER",
      "ZDIFF",
      "ZINTER",
      "ZUNION",
      "ZINTERCARD",
      "GEORADIUS_RO",
      "GEORADIUSBYMEMBER_RO",
      "GEODIST",
      "GEOHASH",
      "GEOPOS",
      "GEOSEARCH",
      "PFCOUNT",
      "XRANGE",
      "XREVRANGE",
      "XLEN",
      "XREAD",
      "XINFO",
      "XPENDING",
      "EVAL_RO",
      "EVALSHA_RO",
      "FCALL_RO",
      "PING",
      "ECHO",
      "INFO",
      "TIME",
      "LASTSAVE",
      "CONFIG GET",
      "SCRIPT EXISTS",
      "SCRIPT LOAD",
      "JSON.GET",
      "JSON.MGET",
      "JSON.TYPE",
      "JSON.STRLEN",
      "JSON.ARRLEN",
      "JSON.OBJLEN",
      "JSON.OBJKEYS",
      "JSON.ARRINDEX",
      "JSON.RESP",
      "JSON.DEBUG",
      // writes that set a state
      "SET",
      "SETEX",
      "PSETEX",
      "MSET",
      "SETRANGE",
      "SETBIT",
      "GETEX",
      "DEL",
      "UNLINK",
      "EXPIRE",
      "PEXPIRE",
      "EXPIREAT",
      "PEXPIREAT",
      "PERSIST",
      "SORT",
      "GEORADIUS",
      "GEORADIUSBYMEMBER",
      "HSET",
      "HMSET",
      "HDEL",
      "LSET",
      "LTRIM",
      "LREM",
      "SADD",
      "SREM",
      "SINTERSTORE",
      "SUNIONSTORE",
      "SDIFFSTORE",
      "ZADD",
      "ZREM",
      "ZREMRANGEBYSCORE",
      "ZREMRANGEBYLEX",
      "ZUNIONSTORE",
      "ZINTERSTORE",
      "ZDIFFSTORE",
      "ZRANGESTORE",
      "GEOADD",
      "GEOSEARCHSTORE",
      "PFADD",
      "PFMERGE",
      "FLUSHALL",
      "FLUSHDB",
      "SCRIPT FLUSH",
      "JSON.SET",
      "JSON.MSET",
      "JSON.DEL",
      "JSON.FORGET",
      "JSON.CLEAR",
      "JSON.MERGE");

  /**
   * Whether {@code args} (a command named {@code name}: "SCRIPT LOAD" for subcommands) may be re-run
   * after it was sent: {@link #IDEMPOTENT}, less the shapes whose options make a re-run add, remove
   * or answer again (see the rule there).
   */
  public static boolean idempotent(String name, CommandArguments args) {
    if (!IDEMPOTENT.contains(name)) {
      return false;
    }
    switch (name) {
      case "SET":
        return !hasWord(args, 3, "NX")
            && !hasWord(args, 3, "GET"); // NX: a retry answers "not set"; GET: the new value
      case "JSON.SET":
        return !hasWord(args, 4, "NX");
      case "EXPIRE":
      case "PEXPIRE":
      case "EXPIREAT":
      case "PEXPIREAT":
        return !hasWord(args, 3, "NX");
      case "ZADD":
        return !zaddIncr(args); // ZADD ... INCR is ZINCRBY
      case "LTRIM": {
        // LTRIM keeps [start, stop]; it keeps what it kept only when the range reaches one end of
        // the list.
        long start = number(args, 2);
        long stop = number(args, 3);
        return (start == 0 && (stop >= 0 || stop == -1)) || (start < 0 && stop == -1);
      }
      case "LREM":
        return number(args, 2)
            == 0; // count 0 removes every match; a count removes that many more each run
      case "ZUNIONSTORE":
      case "ZINTERSTORE":
        return !destinationAmongSources(
            args); // the default SUM aggregate adds the destination's scores again
      default:
        return true;
    }
  }

  /** Whether an argument from index {@code from} on equals {@code word}, ignoring case. */
  private static boolean hasWord(CommandArguments args, int from, String word) {
    byte[] w = word.getBytes(StandardCharsets.US_ASCII);
    for (int i = from; i < args.size(); i++) {
      byte[] a = args.get(i).getRaw();
      if (a.length == w.length && new String(a, StandardCharsets.US_ASCII).equalsIgnoreCase(word)) {
        return true;
      }
    }
    return false;
  }

  /** ZADD key [NX|XX] [GT|LT] [CH] [INCR] score member ...: whether INCR is among the options before the first score. */
  private static boolean zaddIncr(CommandArguments args) {
    for (int i = 2; i < args.size(); i++) {
      String w =
          new String(args.get(i).getRaw(), StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
      switch (w) {
        case "INCR":
          return true;
        case "NX", "XX", "GT", "LT", "CH":
          break;
        default:
          return false; // the first score: members that happen to read "INCR" are data
      }
    }
    return false;
  }

  /** The argument at {@code i} as a number; a missing or non-numeric one gives 1 (the shape is then not idempotent). */
  private static long number(CommandArguments args, int i) {
    if (i >= args.size()) {
      return 1;
    }
    try {
      return Long.parseLong(new String(args.get(i).getRaw(), StandardCharsets.US_ASCII));
    } catch (NumberFormatException e) {
      return 1;
    }
  }

  /** ZUNIONSTORE/ZINTERSTORE destination numkeys key...: whether the destination is one of the keys. */
  private static boolean destinationAmongSources(CommandArguments args) {
    if (args.size() < 3) {
      return true;
    }
    byte[] dest = args.get(1).getRaw();
    long n = number(args, 2);
    for (int i = 3; i < args.size() && i < 3 + n; i++) {
      if (Arrays.equals(dest, args.get(i).getRaw())) {
        return true;
      }
    }
    return false;
  }

  private static final Set<String> WRITES = new HashSet<>(Set.of(
      "SET",
      "SETEX",
      "PSETEX",
      "SETNX",
      "GETSET",
      "GETDEL",
      "GETEX",
      "APPEND",
      "SETRANGE",
      "SETBIT",
      "INCR",
      "INCRBY",
      "INCRBYFLOAT",
      "DECR",
      "DECRBY",
      "MSET",
      "DEL",
      "UNLINK",
      "EXPIRE",
      "EXPIREAT",
      "PEXPIRE",
      "PEXPIREAT",
      "PERSIST",
      "RESTORE",
      "LPUSH",
      "RPUSH",
      "LPUSHX",
      "RPUSHX",
      "LPOP",
      "RPOP",
      "LINSERT",
      "LREM",
      "LSET",
      "LTRIM",
      "RPOPLPUSH",
      "LMOVE",
      "SADD",
      "SREM",
      "SPOP",
      "SMOVE",
      "SDIFFSTORE",
      "SINTERSTORE",
      "SUNIONSTORE",
      "GEOADD",
      "PFADD",
      "PFMERGE",
      "EVAL",
      "EVALSHA"));

  static {
    for (String c : new String[] {
      "HSET",
      "HSETNX",
      "HMSET",
      "HDEL",
      "HINCRBY",
      "HINCRBYFLOAT",
      "ZADD",
      "ZREM",
      "ZINCRBY",
      "ZPOPMIN",
      "ZPOPMAX",
      "ZREMRANGEBYRANK",
      "ZREMRANGEBYSCORE",
      "ZREMRANGEBYLEX",
      "ZUNIONSTORE",
      "ZINTERSTORE",
      "ZDIFFSTORE",
      "ZRANGESTORE",
      "GEOSEARCHSTORE"
    }) {
      WRITES.add(c);
    }
  }

  private final Mode mode;

  public CommandTable(Mode mode) {
    this.mode = mode;
  }

  public Mode mode() {
    return mode;
  }

  /** The command's name as sent, upper case (e.g. {@code "GET"}, {@code "JSON.SET"}). */
  public static String name(CommandArguments args) {
    return new String(args.getCommand().getRaw(), StandardCharsets.UTF_8).toUpperCase(Locale.ROOT);
  }

  /** The first argument after the command, upper case, or "" (sub-commands: SCRIPT LOAD, CONFIG GET). */
  static String subcommand(CommandArguments args) {
    if (args.size() < 2) {
      return "";
    }
    Rawable r = args.get(1);
    return new String(r.getRaw(), StandardCharsets.UTF_8).toUpperCase(Locale.ROOT);
  }

  /**
   * Classifies a command, or throws {@link UnsupportedCommandException} naming it and the reason
   * (before any connection is touched).
   */
  public Spec classify(CommandArguments args) {
    String name = name(args);
    String refused = ALWAYS_REFUSED.get(name);
    if (refused != null) {
      throw new UnsupportedCommandException(name, refused);
    }
    boolean idempotent = idempotent(name, args);
    boolean write = WRITES.contains(name) || (name.startsWith("JSON.") && !isJsonRead(name));
    if (mode == Mode.DYNOMITE) {
      int stride = splitStride(name, args);
      List<byte[]> checked =
          stride > 0 ? raw(args).subList(0, 2 + stride) : raw(args); // a split: its first piece
      DynomiteCommands.Refusal refusal = DynomiteCommands.check(name, checked);
      if (refusal != null) {
        throw new UnsupportedCommandException(refusal.command(), refusal.message());
      }
      if (stride > 0) {
        return new Spec(
            name,
            Routing.KEYED,
            stride == 2 ? Merge.SUM : Merge.CONCAT,
            idempotent,
            write,
            0,
            stride);
      }
    }
    switch (name) {
      case "MGET":
        return new Spec(name, Routing.SPLIT, Merge.CONCAT, idempotent, false, 1);
      case "MSET":
        return new Spec(name, Routing.SPLIT, Merge.FIRST, idempotent, true, 2);
      case "DEL":
      case "EXISTS":
        return new Spec(name, Routing.SPLIT, Merge.SUM, idempotent, name.equals("DEL"), 1);
      case "UNLINK":
      case "TOUCH": // only in datastore mode: Dynomite closes the connection on them
        return new Spec(name, Routing.SPLIT, Merge.SUM, idempotent, name.equals("UNLINK"), 1);
      case "PING":
      case "INFO":
        return new Spec(name, Routing.ANY_NODE, null, idempotent, false, 0);
      case "CONFIG": {
        String sub = subcommand(args);
        if (sub.equals("GET") || mode == Mode.DATASTORE) {
          return new Spec(
              name + " " + sub,
              Routing.ANY_NODE,
              null,
              idempotent(name + " " + sub, args),
              !sub.equals("GET"),
              0);
        }
        throw new UnsupportedCommandException(
            name + " " + sub, "Dynomite only serves CONFIG GET (local to one node)");
      }
      case "SCRIPT": {
        String sub = subcommand(args);
        Merge merge = sub.equals("EXISTS") ? Merge.ALL_TRUE : Merge.FIRST;
        return new Spec(
            name + " " + sub,
            Routing.EVERY_NODE,
            merge,
            idempotent(name + " " + sub, args),
            false,
            0);
      }
      case "KEYS":
        return new Spec(name, Routing.EVERY_RANGE, Merge.CONCAT, idempotent, false, 0);
      default:
        break;
    }
    if (mode == Mode.DATASTORE) {
      switch (name) {
        case "DBSIZE":
          return new Spec(name, Routing.EVERY_RANGE, Merge.SUM, idempotent, false, 0);
        case "FLUSHALL":
        case "FLUSHDB":
          return new Spec(name, Routing.EVERY_NODE, Merge.FIRST, idempotent, true, 0);
        case "ECHO":
        case "TIME":
        case "LASTSAVE":
          return new Spec(name, Routing.ANY_NODE, null, idempotent, false, 0);
        default:
          if (args.isKeyless()) {
            throw new UnsupportedCommandException(
                name, "it names no key, so no node of the cluster owns it");
          }
          return new Spec(name, Routing.KEYED, null, idempotent, write, 0);
      }
    }
    if (args.isKeyless()) {
      throw new UnsupportedCommandException(
          name, "it names no key, so no node of the cluster owns it");
    }
    return new Spec(name, Routing.KEYED, null, idempotent, write, 0);
  }

  /**
   * Shapes Dynomite cannot take that are split without changing their meaning (see
   * {@link Spec#splitStride}): HSET with several field/value pairs (Jedis's {@code hset(key, map)};
   * Dynomite takes exactly one pair), replies summed; GEOPOS with several members (Dynomite cuts the
   * nested reply short and the connection goes out of step), replies concatenated. 0: not split.
   */
  private static int splitStride(String name, CommandArguments args) {
    if (name.equals("HSET") && args.size() >= 6 && (args.size() - 2) % 2 == 0) {
      return 2;
    }
    if (name.equals("GEOPOS") && args.size() >= 4) {
      return 1;
    }
    return 0;
  }

  /** The arguments as bytes, command first: a view, nothing copied (this runs for every command). */
  private static List<byte[]> raw(CommandArguments args) {
    return new AbstractList<>() {
      @Override
      public byte[] get(int i) {
        return args.get(i).getRaw();
      }

      @Override
      public int size() {
        return args.size();
      }
    };
  }

  private static boolean isJsonRead(String name) {
    return name.equals("JSON.GET")
        || name.equals("JSON.MGET")
        || name.equals("JSON.TYPE")
        || name.endsWith("LEN")
        || name.equals("JSON.OBJKEYS")
        || name.equals("JSON.RESP")
        || name.equals("JSON.ARRINDEX")
        || name.equals("JSON.DEBUG");
  }
}
