package io.dyno.companion.internal;

import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;

/**
 * Argument parsing and number formatting shared by the in-memory command families, so each Redis
 * error text (arity, integer, float, syntax) is worded in one place.
 */
final class StoreArgs {
  static final String WRONGTYPE =
      "WRONGTYPE Operation against a key holding the wrong kind of value";
  static final String NOT_INT = "ERR value is not an integer or out of range";
  static final String NOT_FLOAT = "ERR value is not a valid float";
  static final String SYNTAX = "ERR syntax error";

  private StoreArgs() {}

  /** A command's Redis error reply; thrown anywhere below a command and answered by {@link MemoryStore}. */
  static final class Fail extends RuntimeException {
    final String error;

    Fail(String error) {
      super(error, null, false, false);
      this.error = error;
    }
  }

  static void arity(byte[][] a, String cmd, int min, boolean exact) {
    if (exact ? a.length != min : a.length < min) {
      throw new Fail("ERR wrong number of arguments for '" + cmd.toLowerCase() + "' command");
    }
  }

  static long lng(byte[] b) {
    return lng(b, NOT_INT);
  }

  /** @param error the reply when {@code b} is not an integer (Redis words it per command) */
  static long lng(byte[] b, String error) {
    try {
      return Long.parseLong(Resp.str(b));
    } catch (NumberFormatException e) {
      throw new Fail(error);
    }
  }

  /** A float argument: accepts inf/+inf/-inf, refuses NaN. */
  static double dbl(byte[] b) {
    String s = Resp.str(b).toLowerCase();
    switch (s) {
      case "inf", "+inf" -> {
        return Double.POSITIVE_INFINITY;
      }
      case "-inf" -> {
        return Double.NEGATIVE_INFINITY;
      }
      default -> {}
    }
    try {
      double d = Double.parseDouble(s);
      if (Double.isNaN(d)) throw new Fail(NOT_FLOAT);
      return d;
    } catch (NumberFormatException e) {
      throw new Fail(NOT_FLOAT);
    }
  }

  /** A stored value read as a float (INCRBYFLOAT, HINCRBYFLOAT). */
  static double dblValue(byte[] v) {
    try {
      return Double.parseDouble(Resp.str(v));
    } catch (NumberFormatException e) {
      throw new Fail(NOT_FLOAT);
    }
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A float as Redis prints it: integers without a point, infinities as inf/-inf, 17 significant digits. */
  static String fmt(double d) {
    if (Double.isInfinite(d)) return d > 0 ? "inf" : "-inf";
    if (d == Math.rint(d) && Math.abs(d) < 1e17) return Long.toString((long) d);
    return new BigDecimal(d).round(new MathContext(17)).stripTrailingZeros().toPlainString();
  }

  /** Redis start/end index semantics; null when empty. Returns inclusive [from, to]. */
  static int[] range(long start, long end, int len) {
    if (start < 0) start += len;
    if (end < 0) end += len;
    if (start < 0) start = 0;
    if (end >= len) end = len - 1;
    if (start > end || start >= len) return null;
    return new int[] {(int) start, (int) end};
  }

  /** The MATCH pattern of HSCAN/SSCAN/ZSCAN (which answer everything in one pass, cursor 0), or null. */
  static byte[] scanMatch(byte[][] a, String cmd) {
    arity(a, cmd, 3, false);
    byte[] match = null;
    for (int i = 3; i + 1 < a.length; i += 2) {
      if (Resp.upper(a[i]).equals("MATCH")) match = a[i + 1];
    }
    return match;
  }
}
