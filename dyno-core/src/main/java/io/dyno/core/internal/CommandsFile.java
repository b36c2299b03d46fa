package io.dyno.core.internal;

import io.dyno.core.internal.KnownCommands.Arity;
import io.dyno.core.internal.KnownCommands.Entry;
import io.dyno.core.internal.KnownCommands.Kind;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads {@code commands.txt} beside {@link KnownCommands}: one row per command,
 * {@code name | kind [words] | arity [-WORD|+nested] | shapes [| advice]}, the format its header
 * explains. A row the reader does not understand fails the class's loading, naming the row.
 */
final class CommandsFile {
  private CommandsFile() {}

  /** Every row of {@code commands.txt}, by name, in file order. */
  static Map<String, Entry> read() {
    Map<String, Entry> out = new LinkedHashMap<>();
    try (InputStream in = KnownCommands.class.getResourceAsStream("commands.txt")) {
      if (in == null) {
        throw new IllegalStateException(
            "commands.txt is missing beside " + KnownCommands.class.getName());
      }
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      String line;
      while ((line = r.readLine()) != null) {
        String t = line.strip();
        if (t.isEmpty() || t.startsWith("#")) {
          continue;
        }
        String[] cols = t.split("\\|", -1);
        if (cols.length < 4) {
          throw new IllegalStateException(
              "commands.txt: expected 'name | kind [words] | arity | shapes [| advice]': " + line);
        }
        String name = cols[0].strip().toUpperCase(Locale.ROOT);
        String[] facts = cols[1].strip().split(" +");
        Kind kind = kind(facts[0], line);
        boolean idempotent = false;
        boolean refused = false;
        boolean ownConnection = false;
        Boolean dynomiteWrite = null; // null: as its kind says
        Set<String> writeWords = Set.of();
        for (int i = 1; i < facts.length; i++) {
          String w = facts[i];
          if (w.equals("idempotent")) {
            idempotent = true;
          } else if (w.equals("refused")) {
            refused = true;
          } else if (w.equals("own-connection")) {
            ownConnection = true;
          } else if (w.equals("dynomite-read") || w.equals("dynomite-write")) {
            dynomiteWrite = w.equals("dynomite-write");
          } else if (w.startsWith("write-with=")) {
            writeWords = Set.of(w.substring("write-with=".length()).split(","));
          } else {
            throw new IllegalStateException("commands.txt: unknown word '" + w + "': " + line);
          }
        }
        String[] arityCol = cols[2].strip().split(" +");
        Arity arity = arity(arityCol[0], line);
        Set<String> breaking = new HashSet<>();
        boolean nested = false;
        for (int i = 1; i < arityCol.length; i++) {
          if (arityCol[i].equals("+nested")) {
            nested = true;
          } else if (arityCol[i].startsWith("-")) {
            breaking.add(arityCol[i].substring(1).toUpperCase(Locale.ROOT));
          } else {
            throw new IllegalStateException(
                "commands.txt: expected '-WORD' or '+nested' after the arity: " + line);
          }
        }
        List<List<String>> shapes = new ArrayList<>();
        for (String s : cols[3].isBlank() ? new String[0] : cols[3].split(";")) {
          List<String> a = new ArrayList<>();
          for (String w : s.strip().split(" +")) {
            a.add(w.equals("''") ? "" : w.replace("\\s", " "));
          }
          shapes.add(Collections.unmodifiableList(a));
        }
        String advice = cols.length > 4 && !cols[4].isBlank() ? cols[4].strip() : null;
        if (refused && advice == null) {
          throw new IllegalStateException(
              "commands.txt: a refused command needs its reason: " + line);
        }
        Entry entry = new Entry(
            name,
            kind,
            idempotent,
            writeWords,
            refused,
            ownConnection,
            dynomiteWrite != null ? dynomiteWrite : kind.mirrored(),
            arity,
            nested,
            Set.copyOf(breaking),
            List.copyOf(shapes),
            advice);
        if (out.put(name, entry) != null) {
          throw new IllegalStateException("commands.txt lists " + name + " twice");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Collections.unmodifiableMap(out);
  }

  private static Kind kind(String s, String line) {
    return switch (s) {
      case "read" -> Kind.READ;
      case "whole" -> Kind.WHOLE_VALUE_WRITE;
      case "write" -> Kind.WRITE;
      case "admin" -> Kind.ADMIN;
      default ->
        throw new IllegalStateException(
            "commands.txt: expected read, whole, write or admin first in column 2: " + line);
    };
  }

  private static Arity arity(String s, String line) {
    return switch (s) {
      case "none" -> Arity.NONE;
      case "upto1" -> Arity.UPTO1;
      case "key" -> Arity.KEY;
      case "key+1" -> Arity.KEY_1;
      case "key+2" -> Arity.KEY_2;
      case "key+3" -> Arity.KEY_3;
      case "key+n" -> Arity.KEY_N;
      case "keys" -> Arity.KEYS;
      case "key-values" -> Arity.KEY_VALUES;
      case "eval" -> Arity.EVAL;
      case "sub" -> Arity.SUB;
      case "sub+1" -> Arity.SUB_1;
      case "closes" -> Arity.CLOSES;
      default ->
        throw new IllegalStateException("unknown arity '" + s + "' in commands.txt: " + line);
    };
  }
}
