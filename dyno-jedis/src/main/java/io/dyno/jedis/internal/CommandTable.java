package io.dyno.jedis.internal;

import io.dyno.core.internal.KnownCommands;
import io.dyno.core.internal.KnownCommands.Entry;
import io.dyno.core.internal.KnownCommands.Kind;
import java.nio.charset.StandardCharsets;
import java.util.AbstractList;
import java.util.List;
import java.util.Locale;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.args.Rawable;

/**
 * What the client knows about each Redis command as it is called: how it is routed, whether it may
 * be retried and of which kind it is (read, write...: the command table {@link KnownCommands},
 * refined by its arguments in {@link CommandFacts}), and whether the server it talks to can serve it
 * at all. A command the table marks refused is refused in both modes, with the table's reason.
 *
 * <p>Through Dynomite a <em>whitelist</em> of commands and argument shapes applies, the same table,
 * shared with the companion server (probed on the real server): Dynomite closes
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
      Kind kind,
      int keyStride,
      int splitStride) {
    public Spec(
        String name, Routing routing, Merge merge, boolean idempotent, Kind kind, int keyStride) {
      this(name, routing, merge, idempotent, kind, keyStride, 0);
    }

    /** Whether the command may be hedged (a read). */
    public boolean hedgeable() {
      return kind.hedgeable();
    }

    /** Whether a successful call is mirrored to a shadow cluster (a write). */
    public boolean mirrored() {
      return kind.mirrored();
    }
  }

  /** Whether commands go through Dynomite or straight to each node's Redis. */
  public enum Mode {
    DYNOMITE,
    DATASTORE
  }

  private final Mode mode;
  private final PublicExceptions refusals;

  /** @param refusals makes the exception a refused command is thrown as */
  public CommandTable(Mode mode, PublicExceptions refusals) {
    this.mode = mode;
    this.refusals = refusals;
  }

  public Mode mode() {
    return mode;
  }

  /** {@return how this client refuses a call} */
  public PublicExceptions refusals() {
    return refusals;
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
   * Classifies a command, or throws {@link PublicExceptions#unsupported its refusal} naming it and the reason
   * (before any connection is touched).
   */
  public Spec classify(CommandArguments args) {
    String name = name(args);
    Entry entry = KnownCommands.entry(name); // one look-up for every fact of the command
    if (entry != null && entry.refused()) {
      throw refusals.unsupported(name, entry.advice());
    }
    boolean idempotent = CommandFacts.idempotent(entry, name, args);
    Kind kind = CommandFacts.kind(entry, args);
    if (mode == Mode.DYNOMITE) {
      int stride = splitStride(name, args);
      List<byte[]> checked =
          stride > 0 ? raw(args).subList(0, 2 + stride) : raw(args); // a split: its first piece
      KnownCommands.Refusal refusal = KnownCommands.check(name, checked);
      if (refusal != null) {
        throw refusals.unsupported(refusal.command(), refusal.message());
      }
      if (stride > 0) {
        return new Spec(
            name,
            Routing.KEYED,
            stride == 2 ? Merge.SUM : Merge.CONCAT,
            idempotent,
            kind,
            0,
            stride);
      }
    }
    switch (name) {
      case "MGET":
        return new Spec(name, Routing.SPLIT, Merge.CONCAT, idempotent, kind, 1);
      case "MSET":
        return new Spec(name, Routing.SPLIT, Merge.FIRST, idempotent, kind, 2);
      case "DEL":
      case "EXISTS":
      case "UNLINK":
      case "TOUCH": // UNLINK and TOUCH only in datastore mode: Dynomite closes the connection on
        // them
        return new Spec(name, Routing.SPLIT, Merge.SUM, idempotent, kind, 1);
      case "PING":
      case "INFO":
        return new Spec(name, Routing.ANY_NODE, null, idempotent, kind, 0);
      case "CONFIG": {
        String sub = subcommand(args);
        String full = name + " " + sub;
        if (sub.equals("GET") || mode == Mode.DATASTORE) {
          Entry e = KnownCommands.entry(full);
          return new Spec(
              full,
              Routing.ANY_NODE,
              null,
              CommandFacts.idempotent(e, full, args),
              CommandFacts.kind(e, args),
              0);
        }
        throw refusals.unsupported(full, "Dynomite only serves CONFIG GET (local to one node)");
      }
      case "SCRIPT": {
        String sub = subcommand(args);
        String full = name + " " + sub;
        Entry e = KnownCommands.entry(full);
        Merge merge = sub.equals("EXISTS") ? Merge.ALL_TRUE : Merge.FIRST;
        return new Spec(
            full,
            Routing.EVERY_NODE,
            merge,
            CommandFacts.idempotent(e, full, args),
            CommandFacts.kind(e, args),
            0);
      }
      case "KEYS":
        return new Spec(name, Routing.EVERY_RANGE, Merge.CONCAT, idempotent, kind, 0);
      default:
        break;
    }
    if (mode == Mode.DATASTORE) {
      switch (name) {
        case "DBSIZE":
          return new Spec(name, Routing.EVERY_RANGE, Merge.SUM, idempotent, kind, 0);
        case "FLUSHALL":
        case "FLUSHDB":
          return new Spec(name, Routing.EVERY_NODE, Merge.FIRST, idempotent, kind, 0);
        case "ECHO":
        case "TIME":
        case "LASTSAVE":
          return new Spec(name, Routing.ANY_NODE, null, idempotent, kind, 0);
        default:
          if (args.isKeyless()) {
            throw refusals.unsupported(name, "it names no key, so no node of the cluster owns it");
          }
          return new Spec(name, Routing.KEYED, null, idempotent, kind, 0);
      }
    }
    if (args.isKeyless()) {
      throw refusals.unsupported(name, "it names no key, so no node of the cluster owns it");
    }
    return new Spec(name, Routing.KEYED, null, idempotent, kind, 0);
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
  static List<byte[]> raw(CommandArguments args) {
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
}
