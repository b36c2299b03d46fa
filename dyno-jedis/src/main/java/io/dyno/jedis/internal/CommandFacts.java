package io.dyno.jedis.internal;

import io.dyno.core.internal.KnownCommands.Entry;
import io.dyno.core.internal.KnownCommands.Kind;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import redis.clients.jedis.CommandArguments;

/**
 * The facts of the command table ({@link io.dyno.core.internal.KnownCommands}) that a command's arguments refine: whether
 * this shape may be sent again after a failure that left its outcome unknown (sent, no reply), and
 * its kind ({@code SORT ... STORE} writes). The table says which commands are idempotent and of
 * which kind; this class only takes away, by the rule below, what some shapes' options change.
 * dyno-core only obeys the flag it is given.
 *
 * <p>The rule: a command is idempotent when running it a second time, after the first run took
 * effect, leaves the same data and does not turn the reply the caller acts on into a different
 * answer. So reads, and writes that set a state (SET, HSET, DEL, SADD, EXPIRE, ...), are
 * idempotent; a count of what changed (DEL's 1 becoming 0) is accepted as the same answer. Not
 * idempotent: anything that adds to what is there (INCR*, APPEND, LPUSH, ZINCRBY, XADD: each run
 * adds again), removes by position or count (LPOP, SPOP, LTRIM 1 -1), returns the value it replaced
 * (GETSET, GETDEL, SET ... GET: a retry returns the value just written), answers "not done" on a
 * retry of what it did (SETNX, SET ... NX, EXPIRE ... NX: a lock taken would read as refused), or
 * fails on a retry (RESTORE, RENAME, COPY). <b>A command the table does not list is not</b>, in
 * both modes: a command the client does not know is never re-run after it was sent.
 *
 * <p>Relative expiries (EXPIRE, PEXPIRE, SETEX, SET ... EX, GETEX EX) are idempotent: a re-run
 * restarts the time to live from the retry, later by at most the call's deadline, with the same
 * data; that is the same as the caller setting it again a moment later.
 */
final class CommandFacts {
  private CommandFacts() {}

  /**
   * The kind of {@code args}, a command of table row {@code entry} (null: not listed, a write): the
   * row's kind, or a write when one of the row's write words follows the key ({@code SORT ... STORE}).
   */
  static Kind kind(Entry entry, CommandArguments args) {
    if (entry == null) {
      return Kind.WRITE;
    }
    return entry.writeWords().isEmpty() ? entry.kind() : entry.kindOf(CommandTable.raw(args));
  }

  /**
   * Whether {@code args} (a command named {@code name}: "SCRIPT LOAD" for subcommands, of table row
   * {@code entry}, null when not listed) may be re-run after it was sent: idempotent in the table,
   * less the shapes whose options make a re-run add, remove or answer again (see the rule above).
   */
  static boolean idempotent(Entry entry, String name, CommandArguments args) {
    if (entry == null || !entry.idempotent()) {
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
}
