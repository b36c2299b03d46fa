package io.dyno.jedis.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import redis.clients.jedis.CommandArguments;

/**
 * Which commands may be sent again after a failure that left their outcome unknown (sent, no
 * reply), and which write: the table {@code command-facts.txt} beside this class, read once, with
 * {@link #idempotent(String, CommandArguments)} for the commands whose arguments decide it. This is
 * the only place the client decides idempotency; dyno-core only obeys the flag.
 *
 * <p>The rule: a command is idempotent when running it a second time, after the first run took
 * effect, leaves the same data and does not turn the reply the caller acts on into a different
 * answer. So reads, and writes that set a state (SET, HSET, DEL, SADD, EXPIRE, ...), are
 * idempotent; a count of what changed (DEL's 1 becoming 0) is accepted as the same answer. Not
 * idempotent: anything that adds to what is there (INCR*, APPEND, LPUSH, ZINCRBY, XADD: each run
 * adds again), removes by position or count (LPOP, SPOP, LTRIM 1 -1), returns the value it replaced
 * (GETSET, GETDEL, SET ... GET: a retry returns the value just written), answers "not done" on a
 * retry of what it did (SETNX, SET ... NX, EXPIRE ... NX: a lock taken would read as refused), or
 * fails on a retry (RESTORE, RENAME, COPY). <b>Any command not listed idempotent is not</b>, in
 * both modes: a command the client does not know is never re-run after it was sent.
 *
 * <p>Relative expiries (EXPIRE, PEXPIRE, SETEX, SET ... EX, GETEX EX) are idempotent: a re-run
 * restarts the time to live from the retry, later by at most the call's deadline, with the same
 * data; that is the same as the caller setting it again a moment later.
 */
final class CommandFacts {
  private static final String TABLE = "command-facts.txt";
  private static final Set<String> IDEMPOTENT = new HashSet<>();
  private static final Set<String> WRITES = new HashSet<>();

  static {
    for (String line : tableLines()) {
      List<String> words = new ArrayList<>(Arrays.asList(line.trim().split("\\s+")));
      boolean idempotent = false;
      boolean write = false;
      while (words.size() > 1) {
        String last = words.get(words.size() - 1);
        if (last.equals("idempotent")) {
          idempotent = true;
        } else if (last.equals("write")) {
          write = true;
        } else {
          break;
        }
        words.remove(words.size() - 1);
      }
      String name = String.join(" ", words);
      if (!name.equals(name.toUpperCase(Locale.ROOT)) || !(idempotent || write)) {
        throw new IllegalStateException(
            TABLE + ": a row is not NAME [idempotent] [write]: " + line);
      }
      if (idempotent) {
        IDEMPOTENT.add(name);
      }
      if (write) {
        WRITES.add(name);
      }
    }
  }

  private CommandFacts() {}

  /** Whether {@code name} is listed as a write (JSON.* writes are decided by {@link CommandTable}). */
  static boolean listedWrite(String name) {
    return WRITES.contains(name);
  }

  /**
   * Whether {@code args} (a command named {@code name}: "SCRIPT LOAD" for subcommands) may be re-run
   * after it was sent: listed {@code idempotent} in the table, less the shapes whose options make a
   * re-run add, remove or answer again (see the rule above).
   */
  static boolean idempotent(String name, CommandArguments args) {
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

  private static List<String> tableLines() {
    try (InputStream in = CommandFacts.class.getResourceAsStream(TABLE)) {
      if (in == null) {
        throw new IllegalStateException(
            TABLE + " is missing beside " + CommandFacts.class.getName());
      }
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      return reader.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + TABLE, e);
    }
  }
}
