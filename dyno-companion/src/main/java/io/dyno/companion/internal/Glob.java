package io.dyno.companion.internal;

/** Redis glob patterns ({@code * ? [abc] [^a] [a-z] \x}) over bytes. */
final class Glob {
  private Glob() {}

  static boolean matches(byte[] p, byte[] s) {
    return match(p, 0, s, 0);
  }

  private static boolean match(byte[] p, int pi, byte[] s, int si) {
    while (pi < p.length) {
      byte c = p[pi];
      switch (c) {
        case '*' -> {
          while (pi + 1 < p.length && p[pi + 1] == '*') pi++;
          if (pi + 1 == p.length) return true;
          for (int k = si; k <= s.length; k++) {
            if (match(p, pi + 1, s, k)) return true;
          }
          return false;
        }
        case '?' -> {
          if (si >= s.length) return false;
          si++;
          pi++;
        }
        case '[' -> {
          if (si >= s.length) return false;
          int j = pi + 1;
          boolean not = j < p.length && p[j] == '^';
          if (not) j++;
          boolean hit = false;
          while (j < p.length && p[j] != ']') {
            if (p[j] == '\\' && j + 1 < p.length) {
              j++;
              if (p[j] == s[si]) hit = true;
              j++;
            } else if (j + 2 < p.length && p[j + 1] == '-' && p[j + 2] != ']') {
              int lo = p[j] & 0xff, hi = p[j + 2] & 0xff, x = s[si] & 0xff;
              if (lo > hi) {
                int t = lo;
                lo = hi;
                hi = t;
              }
              if (x >= lo && x <= hi) hit = true;
              j += 3;
            } else {
              if (p[j] == s[si]) hit = true;
              j++;
            }
          }
          if (hit == not) return false;
          pi = j + 1;
          si++;
        }
        case '\\' -> {
          if (pi + 1 < p.length) pi++;
          if (si >= s.length || p[pi] != s[si]) return false;
          pi++;
          si++;
        }
        default -> {
          if (si >= s.length || c != s[si]) return false;
          pi++;
          si++;
        }
      }
    }
    return si == s.length;
  }
}
