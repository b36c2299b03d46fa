package io.dyno.loadgen.bench;

import java.time.Duration;
import java.util.Locale;
import java.util.Set;

/**
 * How setting values are written as text (command line, properties file, control endpoint) and
 * checked: every error says "setting NAME: PROBLEM".
 */
public final class SettingValues {
  /** Duration values meaning "until stopped". */
  static final Set<String> ENDLESS = Set.of("0", "none", "endless", "forever");

  private SettingValues() {}

  /** Throws IllegalArgumentException "setting NAME: PROBLEM" unless {@code ok}. */
  public static void require(boolean ok, String name, String problem) {
    if (!ok) {
      throw new IllegalArgumentException("setting " + name + ": " + problem);
    }
  }

  /** Parses durations written {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h} or plain seconds. */
  public static Duration parseDuration(String name, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    try {
      if (t.endsWith("ms"))
        return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2).trim()));
      if (t.endsWith("s"))
        return Duration.ofMillis(Math.round(
            Double.parseDouble(t.substring(0, t.length() - 1).trim()) * 1000));
      if (t.endsWith("m"))
        return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1).trim()) * 60);
      if (t.endsWith("h"))
        return Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1).trim()) * 3600);
      return Duration.ofMillis(Math.round(Double.parseDouble(t) * 1000));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "setting " + name + ": \"" + text + "\" is not a duration (e.g. 500ms, 10s, 2m)");
    }
  }

  /** A duration, or ZERO for one of the {@link #ENDLESS} words. */
  static Duration parseDurationOrEndless(String name, String v) {
    return ENDLESS.contains(v.toLowerCase(Locale.ROOT)) ? Duration.ZERO : parseDuration(name, v);
  }

  /** A whole number, {@code _} allowed between digits, {@code k} for thousands, {@code m} for millions. */
  static long parseLong(String name, String v) {
    try {
      String t = v.replace("_", "").toLowerCase(Locale.ROOT);
      long mult = 1;
      if (t.endsWith("k")) {
        mult = 1_000;
        t = t.substring(0, t.length() - 1);
      } else if (t.endsWith("m")) {
        mult = 1_000_000;
        t = t.substring(0, t.length() - 1);
      }
      return Long.parseLong(t) * mult;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "setting " + name + ": \"" + v + "\" is not a whole number");
    }
  }

  static int parseInt(String name, String v) {
    return (int) parseLong(name, v);
  }

  static double parseDouble(String name, String v) {
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("setting " + name + ": \"" + v + "\" is not a number");
    }
  }

  static boolean parseBool(String name, String v) {
    if (v.equalsIgnoreCase("true") || v.equals("1") || v.equalsIgnoreCase("yes")) return true;
    if (v.equalsIgnoreCase("false") || v.equals("0") || v.equalsIgnoreCase("no")) return false;
    throw new IllegalArgumentException("setting " + name + ": \"" + v + "\" is not true/false");
  }

  /** A rate or percentage as text: whole numbers without ".0", 0 for unlimited. */
  static String fmtRate(double r) {
    return r <= 0 ? "0" : (r == Math.rint(r) ? Long.toString((long) r) : Double.toString(r));
  }
}
