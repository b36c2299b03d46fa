package io.dyno.companion.internal;

import io.dyno.core.internal.KnownCommands;
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

  private static void put(Kind kind, String names) {
    for (String n : names.trim().split("\\s+")) {
      TABLE.put(n, new Spec(kind, replicated(n), 1));
    }
  }

  /** Whether Dynomite routes {@code name} as a write: the command table's fact. */
  private static boolean replicated(String name) {
    KnownCommands.Entry e = KnownCommands.entry(name);
    return e != null && e.dynomiteWrite();
  }

  static {
    // Reads and writes as Dynomite's parser classifies them (is_read), from the command table
    // (KnownCommands.Entry#dynomiteWrite): a "read" goes to the local rack's owner only (every rack
    // at DC_QUORUM) and is never replicated, so SORT ... STORE, SUNIONSTORE, ZINTERSTORE,
    // ZUNIONSTORE and GEORADIUS(BYMEMBER) ... STORE change only the racks that served them; TTL and
    // PFCOUNT count as writes (replicated, write consistency). Every command Dynomite serves is
    // routed by its key unless named below; names it does not serve close the connection.
    for (KnownCommands.Entry e : KnownCommands.entries()) {
      if (e.served() && !e.name().contains(" ")) {
        TABLE.put(e.name(), new Spec(Kind.KEY, e.dynomiteWrite(), 1));
      }
    }
    put(Kind.KEY_LOCAL_RACK, "HGETALL HKEYS HVALS HSCAN SSCAN ZSCAN");
    put(Kind.MULTI, "MGET EXISTS DEL");
    TABLE.put("MSET", new Spec(Kind.MULTI, true, 2));
    put(Kind.EVAL, "EVAL");
    put(Kind.EVALSHA, "EVALSHA");
    put(Kind.SCRIPT, "SCRIPT");
    put(Kind.LOCAL, "KEYS SCAN INFO");
    put(Kind.PING, "PING");
    put(Kind.QUIT, "QUIT");
    put(Kind.CONFIG, "CONFIG");
    put(Kind.CONSISTENCY, CONSISTENCY_COMMAND);
  }

  private static final Spec UNSUPPORTED = new Spec(Kind.UNSUPPORTED, false, 1);

  private Commands() {}

  static Spec lookup(String upperName) {
    return TABLE.getOrDefault(upperName, UNSUPPORTED);
  }
}
