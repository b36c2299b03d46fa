package io.dyno.companion.internal;

import static io.dyno.companion.internal.StoreArgs.SYNTAX;
import static io.dyno.companion.internal.StoreArgs.arity;
import static io.dyno.companion.internal.StoreArgs.b;
import static io.dyno.companion.internal.StoreArgs.dbl;
import static io.dyno.companion.internal.StoreArgs.fmt;
import static io.dyno.companion.internal.StoreArgs.lng;
import static io.dyno.companion.internal.StoreArgs.range;

import io.dyno.companion.internal.Keyspace.Entry;
import io.dyno.companion.internal.Keyspace.Key;
import io.dyno.companion.internal.StoreArgs.Fail;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Sorted sets ({@link ZSet}); scores are formatted as Redis prints them and bounds parsed by {@link ScoreBound}. */
final class SortedSetCommands implements CommandFamily {
  private final Keyspace ks;

  SortedSetCommands(Keyspace ks) {
    this.ks = ks;
  }

  @Override
  public RedisMessage run(String cmd, byte[][] a) {
    switch (cmd) {
      case "ZADD":
        return zadd(a);
      case "ZINCRBY": {
        arity(a, cmd, 4, true);
        double by = dbl(a[2]);
        ZSet z = ks.getOrCreate(a[1], ZSet.class, ZSet::new);
        Double cur = z.scores.get(new Key(a[3]));
        double n = (cur == null ? 0 : cur) + by;
        z.put(new Key(a[3]), n);
        return Resp.bulk(fmt(n));
      }
      case "ZREM": {
        arity(a, cmd, 3, false);
        ZSet z = ks.get(a[1], ZSet.class);
        if (z == null) return Resp.ZERO;
        int n = 0;
        for (int i = 2; i < a.length; i++) if (z.remove(new Key(a[i]))) n++;
        ks.dropIfEmpty(a[1], z);
        return Resp.integer(n);
      }
      case "ZSCORE": {
        arity(a, cmd, 3, true);
        ZSet z = ks.get(a[1], ZSet.class);
        Double d = z == null ? null : z.scores.get(new Key(a[2]));
        return d == null ? Resp.NIL : Resp.bulk(fmt(d));
      }
      case "ZMSCORE": {
        arity(a, cmd, 3, false);
        ZSet z = ks.get(a[1], ZSet.class);
        List<RedisMessage> out = new ArrayList<>();
        for (int i = 2; i < a.length; i++) {
          Double d = z == null ? null : z.scores.get(new Key(a[i]));
          out.add(d == null ? Resp.NIL : Resp.bulk(fmt(d)));
        }
        return Resp.array(out);
      }
      case "ZCARD": {
        arity(a, cmd, 2, true);
        ZSet z = ks.get(a[1], ZSet.class);
        return Resp.integer(z == null ? 0 : z.scores.size());
      }
      case "ZCOUNT": {
        arity(a, cmd, 4, true);
        ZSet z = ks.get(a[1], ZSet.class);
        ScoreBound min = ScoreBound.parse(a[2]);
        ScoreBound max = ScoreBound.parse(a[3]);
        if (z == null) return Resp.ZERO;
        int n = 0;
        for (Object[] e : z.order) if (ScoreBound.within(min, max, e)) n++;
        return Resp.integer(n);
      }
      case "ZRANK":
      case "ZREVRANK": {
        arity(a, cmd, 3, true);
        ZSet z = ks.get(a[1], ZSet.class);
        if (z == null || !z.scores.containsKey(new Key(a[2]))) return Resp.NIL;
        List<Object[]> l = z.list();
        for (int i = 0; i < l.size(); i++) {
          if (l.get(i)[1].equals(new Key(a[2])))
            return Resp.integer(cmd.equals("ZRANK") ? i : l.size() - 1 - i);
        }
        return Resp.NIL;
      }
      case "ZRANGE":
      case "ZREVRANGE":
      case "ZRANGEBYSCORE":
      case "ZREVRANGEBYSCORE":
        return zrange(cmd, a);
      case "ZREMRANGEBYRANK": {
        arity(a, cmd, 4, true);
        ZSet z = ks.get(a[1], ZSet.class);
        long s = lng(a[2]);
        long e = lng(a[3]);
        if (z == null) return Resp.ZERO;
        List<Object[]> l = z.list();
        int[] r = range(s, e, l.size());
        if (r == null) return Resp.ZERO;
        for (int i = r[0]; i <= r[1]; i++) z.remove((Key) l.get(i)[1]);
        ks.dropIfEmpty(a[1], z);
        return Resp.integer(r[1] - r[0] + 1);
      }
      case "ZREMRANGEBYSCORE": {
        arity(a, cmd, 4, true);
        ZSet z = ks.get(a[1], ZSet.class);
        ScoreBound min = ScoreBound.parse(a[2]);
        ScoreBound max = ScoreBound.parse(a[3]);
        if (z == null) return Resp.ZERO;
        int n = 0;
        for (Object[] e : z.list()) {
          if (ScoreBound.within(min, max, e)) {
            z.remove((Key) e[1]);
            n++;
          }
        }
        ks.dropIfEmpty(a[1], z);
        return Resp.integer(n);
      }
      case "ZPOPMIN":
      case "ZPOPMAX": {
        arity(a, cmd, 2, false);
        ZSet z = ks.get(a[1], ZSet.class);
        long count = a.length > 2 ? lng(a[2]) : 1;
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; z != null && i < count && !z.order.isEmpty(); i++) {
          Object[] e = cmd.equals("ZPOPMIN") ? z.order.first() : z.order.last();
          z.remove((Key) e[1]);
          out.add(((Key) e[1]).b());
          out.add(b(fmt((Double) e[0])));
        }
        if (z != null) ks.dropIfEmpty(a[1], z);
        return Resp.bulkArray(out);
      }
      case "ZSCAN": {
        byte[] match = StoreArgs.scanMatch(a, cmd);
        List<byte[]> out = new ArrayList<>();
        ZSet z = ks.get(a[1], ZSet.class);
        if (z != null)
          for (Object[] e : z.order) {
            Key k = (Key) e[1];
            if (match == null || Glob.matches(match, k.b())) {
              out.add(k.b());
              out.add(b(fmt((Double) e[0])));
            }
          }
        return Resp.array(List.of(Resp.bulk("0"), Resp.bulkArray(out)));
      }
      default:
        return null;
    }
  }

  private RedisMessage zadd(byte[][] a) {
    arity(a, "ZADD", 4, false);
    boolean nx = false, xx = false, gt = false, lt = false, ch = false, incr = false;
    int i = 2;
    for (; i < a.length; i++) {
      String o = Resp.upper(a[i]);
      if (o.equals("NX")) nx = true;
      else if (o.equals("XX")) xx = true;
      else if (o.equals("GT")) gt = true;
      else if (o.equals("LT")) lt = true;
      else if (o.equals("CH")) ch = true;
      else if (o.equals("INCR")) incr = true;
      else break;
    }
    if ((a.length - i) % 2 != 0 || a.length == i) throw new Fail(SYNTAX);
    if (nx && xx) throw new Fail("ERR XX and NX options at the same time are not compatible");
    if (incr && a.length - i != 2)
      throw new Fail("ERR INCR option supports a single increment-element pair");
    double[] scores = new double[(a.length - i) / 2];
    for (int j = 0; j < scores.length; j++) scores[j] = dbl(a[i + 2 * j]);
    ZSet z = ks.get(a[1], ZSet.class);
    if (z == null) {
      if (xx) return incr ? Resp.NIL : Resp.ZERO;
      z = new ZSet();
      ks.data.put(new Key(a[1]), new Entry(z));
    }
    int added = 0, changed = 0;
    Double last = null;
    for (int j = 0; j < scores.length; j++) {
      Key m = new Key(a[i + 2 * j + 1]);
      Double old = z.scores.get(m);
      double s = incr ? (old == null ? 0 : old) + scores[j] : scores[j];
      if ((nx && old != null)
          || (xx && old == null)
          || (old != null && gt && s <= old)
          || (old != null && lt && s >= old)) {
        continue;
      }
      z.put(m, s);
      last = s;
      if (old == null) added++;
      else if (old != s) changed++;
    }
    ks.dropIfEmpty(a[1], z);
    if (incr) return last == null ? Resp.NIL : Resp.bulk(fmt(last));
    return Resp.integer(ch ? added + changed : added);
  }

  private RedisMessage zrange(String cmd, byte[][] a) {
    arity(a, cmd, 4, false);
    boolean byScore = cmd.contains("BYSCORE");
    boolean rev = cmd.startsWith("ZREV");
    boolean withScores = false;
    long offset = 0, limit = -1;
    for (int i = 4; i < a.length; i++) {
      String o = Resp.upper(a[i]);
      switch (o) {
        case "WITHSCORES" -> withScores = true;
        case "BYSCORE" -> byScore = true;
        case "REV" -> rev = true;
        case "LIMIT" -> {
          if (i + 2 >= a.length) throw new Fail(SYNTAX);
          offset = lng(a[++i]);
          limit = lng(a[++i]);
        }
        default -> throw new Fail(SYNTAX);
      }
    }
    ZSet z = ks.get(a[1], ZSet.class);
    List<Object[]> l = z == null ? new ArrayList<>() : z.list();
    if (rev) Collections.reverse(l);
    List<Object[]> sel = new ArrayList<>();
    if (byScore) {
      // ZREVRANGEBYSCORE and ZRANGE ... BYSCORE REV take max first
      boolean maxFirst = rev;
      ScoreBound lo = ScoreBound.parse(maxFirst ? a[3] : a[2]);
      ScoreBound hi = ScoreBound.parse(maxFirst ? a[2] : a[3]);
      for (Object[] e : l) if (ScoreBound.within(lo, hi, e)) sel.add(e);
      if (offset > 0 || limit >= 0) {
        int from = (int) Math.min(offset, sel.size());
        int to = limit < 0 ? sel.size() : (int) Math.min(sel.size(), from + limit);
        sel = sel.subList(from, to);
      }
    } else {
      int[] r = range(lng(a[2]), lng(a[3]), l.size());
      if (r != null) sel = l.subList(r[0], r[1] + 1);
    }
    List<byte[]> out = new ArrayList<>();
    for (Object[] e : sel) {
      out.add(((Key) e[1]).b());
      if (withScores) out.add(b(fmt((Double) e[0])));
    }
    return Resp.bulkArray(out);
  }

  /** A ZRANGEBYSCORE bound: number, (exclusive, -inf, +inf. */
  record ScoreBound(double v, boolean exclusive) {
    static ScoreBound parse(byte[] b) {
      String s = Resp.str(b);
      boolean ex = s.startsWith("(");
      try {
        return new ScoreBound(dbl(b(ex ? s.substring(1) : s)), ex);
      } catch (Fail f) {
        throw new Fail("ERR min or max is not a float");
      }
    }

    boolean belowOk(double x) {
      return exclusive ? x > v : x >= v;
    }

    boolean aboveOk(double x) {
      return exclusive ? x < v : x <= v;
    }

    /** Whether a sorted-set entry {score, member} lies between {@code min} and {@code max}. */
    static boolean within(ScoreBound min, ScoreBound max, Object[] entry) {
      double score = (Double) entry[0];
      return min.belowOk(score) && max.aboveOk(score);
    }
  }
}
