package io.dyno.core.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Every command the client knows, one row each, read once from {@code commands.txt} beside this
 * class: its {@link Kind} (read, whole-value write, write, admin: what hedging, mirroring and the
 * decider's rack rules go by), whether it may be sent again after a failure of unknown outcome,
 * whether the client refuses it outright or keeps it off shared connections, and what real Dynomite
 * serves of it (its parser's arity and the argument shapes probed). The one place dyno-core's
 * decider, dyno-jedis's classifier and transports, and the companion server (which closes the
 * connection on what Dynomite would not serve) take these facts from. Look-ups are one hash-map
 * get of the name; nothing is allocated per call.
 *
 * <p>Dynomite's request parser knows a fixed list of command names, each with an arity class; a
 * name it does not know, a number of arguments its class does not allow, or an empty key or one
 * longer than {@link #MAX_KEY_BYTES} makes it close the connection without any reply. The file also
 * holds, per command, the shapes Jedis produces for it, which the tests send to a real Dynomite node.
 */
public final class KnownCommands {

  /** What a command does to the data, which decides whether it is hedged and mirrored. */
  public enum Kind {
    /** Never changes data: may be hedged; not mirrored; a read served by another rack remembers nothing. */
    READ,
    /** Replaces a key's whole value (SET, DEL): mirrored, never hedged; sent home, it brings a remembered key home. */
    WHOLE_VALUE_WRITE,
    /** Changes data otherwise: mirrored, never hedged. */
    WRITE,
    /** Changes a server's or the connection's state, no key's data: neither hedged nor mirrored. */
    ADMIN;

    /** Whether a call of this kind may be hedged (sent to a second replica while the first is slow). */
    public boolean hedgeable() {
      return this == READ;
    }

    /** Whether a successful call of this kind is mirrored to a shadow cluster. */
    public boolean mirrored() {
      return this == WHOLE_VALUE_WRITE || this == WRITE;
    }
  }

  /** Dynomite's parser arity classes (see the file's header). */
  public enum Arity {
    NONE,
    UPTO1,
    KEY,
    KEY_1,
    KEY_2,
    KEY_3,
    KEY_N,
    KEYS,
    KEY_VALUES,
    EVAL,
    SUB,
    SUB_1,
    CLOSES;

    /** Exact number of arguments after the key, or -1 when not fixed. */
    int afterKey() {
      return switch (this) {
        case KEY -> 0;
        case KEY_1 -> 1;
        case KEY_2 -> 2;
        case KEY_3 -> 3;
        default -> -1;
      };
    }
  }

  /**
   * One row: a command (with its subcommand for SCRIPT and CONFIG); its kind; whether it may be sent
   * again after a failure of unknown outcome; the option words that make it a write
   * ({@code SORT ... STORE}); whether the client refuses it in every mode ({@code advice} is then the
   * reason); whether it holds or changes its connection's state; whether Dynomite routes it as a
   * write (replicated to every rack, at the write consistency); its Dynomite arity; the shapes
   * Jedis produces for it (each an argument list, command first; '{t}' marks keys); and advice for a
   * refusal.
   */
  public record Entry(
      String name,
      Kind kind,
      boolean idempotent,
      Set<String> writeWords,
      boolean refused,
      boolean ownConnection,
      boolean dynomiteWrite,
      Arity arity,
      boolean nestedReplies,
      Set<String> breakingWords,
      List<List<String>> shapes,
      String advice) {
    public boolean served() {
      return arity != Arity.CLOSES;
    }

    /**
     * The kind of this command in the shape {@code args} (raw arguments, command first): a write
     * when one of {@link #writeWords} follows the key ({@code SORT ... STORE}), else {@link #kind}.
     */
    public Kind kindOf(List<byte[]> args) {
      for (int i = 2; i < args.size() && !writeWords.isEmpty(); i++) {
        byte[] a = args.get(i);
        if (a.length <= MAX_WRITE_WORD && writeWords.contains(upper(a))) {
          return Kind.WRITE;
        }
      }
      return kind;
    }
  }

  /** Why a command is not served: the command (as the client names it) and a sentence naming the shape. */
  public record Refusal(
      String command, String shape, String advice, boolean breaksReplies, boolean waits) {
    Refusal(String command, String shape, String advice) {
      this(command, shape, advice, false, false);
    }

    Refusal(String command, String shape, String advice, boolean breaksReplies) {
      this(command, shape, advice, breaksReplies, false);
    }

    /**
     * True when Dynomite neither answers nor closes but waits for more of the request (a known
     * command with no argument at all, SCRIPT with a subcommand it does not know): the connection
     * answers nothing more.
     */
    @Override
    public boolean waits() {
      return waits;
    }

    /** e.g. "EXPIRE with NX is not served by Dynomite (it closes the connection on it); set the expiry ...". */
    public String message() {
      return shape + " is not served by Dynomite ("
          + (breaksReplies
              ? "its reply parser loses track of a nested reply that is not the last element, and the connection's"
                  + " replies go out of step"
              : "it closes the connection on it")
          + ")" + (advice == null ? "" : "; " + advice);
    }
  }

  private static final int MAX_WRITE_WORD = 16; // longer arguments are data, not an option word
  private static final Map<String, Entry> ENTRIES = CommandsFile.read();

  private KnownCommands() {}

  /** Every entry of the file, in file order. */
  public static List<Entry> entries() {
    return List.copyOf(ENTRIES.values());
  }

  /** The entry for a command name (upper case; "SCRIPT LOAD" for subcommands), or null. */
  public static Entry entry(String name) {
    return ENTRIES.get(name);
  }

  /** The kind of {@code name} (upper case); a command not listed is a {@link Kind#WRITE}. */
  public static Kind kind(String name) {
    Entry e = ENTRIES.get(name);
    return e == null ? Kind.WRITE : e.kind();
  }

  /**
   * Checks a request as Dynomite's parser would. {@code args} are the raw arguments, command name
   * first. Returns null when Dynomite serves it, else what it would close the connection on.
   */
  public static Refusal check(List<byte[]> args) {
    if (args.isEmpty()) {
      return new Refusal("", "an empty request", null);
    }
    return check(upper(args.get(0)), args);
  }

  /** {@link #check(List)} with the command name already upper-cased ({@code name} is {@code args.get(0)}). */
  public static Refusal check(String name, List<byte[]> args) {
    int n = args.size();
    Entry e = ENTRIES.get(name);
    if (e == null && (name.equals("SCRIPT") || name.equals("CONFIG"))) {
      String sub = n > 1 ? upper(args.get(1)) : "";
      String full = sub.isEmpty() ? name : name + " " + sub;
      e = ENTRIES.get(full);
      if (e == null || !e.served()) {
        boolean waits =
            n == 1 || (name.equals("SCRIPT") && e == null); // the parser wants a keyword it knows
        return new Refusal(full, full, e == null ? null : e.advice(), false, waits);
      }
      int extra = n - 2;
      int allowed = e.arity() == Arity.SUB_1 ? 1 : 0;
      if (extra != allowed) {
        return new Refusal(
            full,
            describe(full, args, 2, allowed, allowed == 0 ? full : full + " arg", ""),
            e.advice());
      }
      return null;
    }
    if (e == null) {
      return new Refusal(name, name, null);
    }
    if (!e.served()) {
      return new Refusal(name, name, e.advice());
    }
    if (n == 1 && e.arity() != Arity.NONE && e.arity() != Arity.UPTO1) {
      return new Refusal(
          name, name + " without a key", e.advice(), false, true); // the parser waits for it
    }
    switch (e.arity()) {
      case NONE:
        return n == 1 ? null : new Refusal(name, name + " with an argument", e.advice());
      case UPTO1:
        return n <= 2
            ? null
            : new Refusal(name, describe(name, args, 1, 1, name + " [arg]", ""), e.advice());
      case KEYS:
        if (n < 2) {
          return new Refusal(name, name + " without a key", e.advice());
        }
        for (int i = 1; i < n; i++) {
          Refusal r = keyRefusal(name, args.get(i), e);
          if (r != null) {
            return r;
          }
        }
        return null;
      case KEY_VALUES:
        if (n < 3 || (n - 1) % 2 != 0) {
          return new Refusal(name, name + " with an odd number of keys and values", e.advice());
        }
        for (int i = 1; i < n; i += 2) {
          Refusal r = keyRefusal(name, args.get(i), e);
          if (r != null) {
            return r;
          }
        }
        return null;
      case EVAL:
        return checkEval(name, args, e);
      default:
        break;
    }
    // KEY, KEY_1..3, KEY_N: the key, then a fixed (or any) number of arguments.
    if (n < 2) {
      return new Refusal(name, name + " without a key", e.advice());
    }
    Refusal badKey = keyRefusal(name, args.get(1), e);
    if (badKey != null) {
      return badKey;
    }
    for (int i = 2; i < n && !e.breakingWords().isEmpty(); i++) {
      String w = upper(args.get(i));
      if (e.breakingWords().contains(w)) {
        return new Refusal(name, name + " with " + w, e.advice(), true);
      }
    }
    int fixed = e.arity().afterKey();
    if (fixed >= 0 && n - 2 != fixed) {
      return new Refusal(
          name,
          describe(name, args, 2, fixed, name + " key" + " arg".repeat(fixed), " after the key"),
          e.advice(),
          e.nestedReplies() && n - 2 > fixed);
    }
    return null;
  }

  private static Refusal checkEval(String name, List<byte[]> args, Entry e) {
    int n = args.size();
    long keys = -1;
    if (n >= 3) {
      try {
        keys = Long.parseLong(new String(args.get(2), StandardCharsets.US_ASCII));
      } catch (NumberFormatException ignored) {
        keys = -1;
      }
    }
    if (keys <= 0) {
      return new Refusal(name, name + " with no key", e.advice());
    }
    if (n < 3 + keys) {
      return new Refusal(name, name + " with fewer keys than numkeys", e.advice());
    }
    for (int i = 3; i < 3 + keys; i++) {
      Refusal r = keyRefusal(name, args.get(i), e);
      if (r != null) {
        return r;
      }
    }
    return null;
  }

  /**
   * The longest key Dynomite takes: its parser wants a key inside one buffer, {@code mbuf_size}
   * (default 16384, as in every configuration this project writes) less the buffer's 64-byte
   * header; a longer key, like an empty one, closes the connection (probed: 16319 served, 16320 not).
   */
  public static final int MAX_KEY_BYTES = 16319;

  private static Refusal keyRefusal(String name, byte[] key, Entry e) {
    if (key.length == 0) {
      return new Refusal(name, name + " with an empty key", e.advice());
    }
    if (key.length > MAX_KEY_BYTES) {
      return new Refusal(
          name,
          name + " with key " + KeyText.show(key),
          "Dynomite takes keys of up to " + MAX_KEY_BYTES
              + " bytes (with its default mbuf_size of 16384)");
    }
    return null;
  }

  /**
   * Names a shape with the wrong number of arguments: the option words when the extra arguments are
   * words ("EXPIRE with NX"), else how many arguments were given and what Dynomite takes.
   */
  private static String describe(
      String name, List<byte[]> args, int firstArg, int allowed, String syntax, String after) {
    int given = args.size() - firstArg;
    if (given > allowed) {
      List<String> words = new ArrayList<>();
      boolean allWords = true;
      for (int i = firstArg + allowed; i < args.size(); i++) {
        String w = new String(args.get(i), StandardCharsets.UTF_8);
        if (!w.matches(
            "[A-Z_]{2,}")) { // option words as Jedis sends them (NX, WITHSCORE), not data
          allWords = false;
          break;
        }
        words.add(w);
      }
      if (allWords) {
        return name + " with " + String.join(" ", words);
      }
    }
    return name + " with " + given + (given == 1 ? " argument" : " arguments") + after
        + " (Dynomite takes exactly " + syntax + ")";
  }

  private static String upper(byte[] b) {
    return new String(b, StandardCharsets.UTF_8).toUpperCase(Locale.ROOT);
  }
}
