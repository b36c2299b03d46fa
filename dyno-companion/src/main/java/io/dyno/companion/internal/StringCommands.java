package io.dyno.companion.internal;

import static io.dyno.companion.internal.StoreArgs.SYNTAX;
import static io.dyno.companion.internal.StoreArgs.WRONGTYPE;
import static io.dyno.companion.internal.StoreArgs.arity;
import static io.dyno.companion.internal.StoreArgs.b;
import static io.dyno.companion.internal.StoreArgs.dbl;
import static io.dyno.companion.internal.StoreArgs.dblValue;
import static io.dyno.companion.internal.StoreArgs.fmt;
import static io.dyno.companion.internal.StoreArgs.lng;
import static io.dyno.companion.internal.StoreArgs.range;

import io.dyno.companion.internal.Keyspace.Entry;
import io.dyno.companion.internal.Keyspace.Key;
import io.dyno.companion.internal.StoreArgs.Fail;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** String values: GET/SET and their variants, counters, ranges, bits, MGET/MSET. */
final class StringCommands implements CommandFamily {
  private final Keyspace ks;

  StringCommands(Keyspace ks) {
    this.ks = ks;
  }

  @Override
  public RedisMessage run(String cmd, byte[][] a) {
    switch (cmd) {
      case "GET": {
        arity(a, cmd, 2, true);
        return Resp.bulk(ks.get(a[1], byte[].class));
      }
      case "SET":
        return set(a);
      case "SETNX": {
        arity(a, cmd, 3, true);
        if (ks.entry(new Key(a[1])) != null) return Resp.ZERO;
        ks.setString(a[1], a[2], false);
        return Resp.ONE;
      }
      case "SETEX":
      case "PSETEX": {
        arity(a, cmd, 4, true);
        long t = lng(a[2]);
        if (t <= 0)
          throw new Fail("ERR invalid expire time in '" + cmd.toLowerCase() + "' command");
        ks.setString(a[1], a[3], false);
        ks.data.get(new Key(a[1])).expireAt = ks.now() + (cmd.equals("SETEX") ? t * 1000 : t);
        return Resp.OK;
      }
      case "GETSET": {
        arity(a, cmd, 3, true);
        byte[] old = ks.get(a[1], byte[].class);
        ks.setString(a[1], a[2], false);
        return Resp.bulk(old);
      }
      case "GETDEL": {
        arity(a, cmd, 2, true);
        byte[] old = ks.get(a[1], byte[].class);
        if (old != null) ks.data.remove(new Key(a[1]));
        return Resp.bulk(old);
      }
      case "GETEX":
        return getex(a);
      case "APPEND": {
        arity(a, cmd, 3, true);
        byte[] old = ks.get(a[1], byte[].class);
        byte[] nv = old == null ? a[2] : concat(old, a[2]);
        ks.setString(a[1], nv, true);
        return Resp.integer(nv.length);
      }
      case "STRLEN": {
        arity(a, cmd, 2, true);
        byte[] v = ks.get(a[1], byte[].class);
        return Resp.integer(v == null ? 0 : v.length);
      }
      case "INCR":
        arity(a, cmd, 2, true);
        return incr(a[1], 1);
      case "DECR":
        arity(a, cmd, 2, true);
        return incr(a[1], -1);
      case "INCRBY":
        arity(a, cmd, 3, true);
        return incr(a[1], lng(a[2]));
      case "DECRBY":
        arity(a, cmd, 3, true);
        return incr(a[1], Math.negateExact(lng(a[2])));
      case "INCRBYFLOAT": {
        arity(a, cmd, 3, true);
        byte[] v = ks.get(a[1], byte[].class);
        double d = (v == null ? 0 : dblValue(v)) + dbl(a[2]);
        if (Double.isInfinite(d)) throw new Fail("ERR increment would produce NaN or Infinity");
        byte[] out = b(fmt(d));
        ks.setString(a[1], out, true);
        return Resp.bulk(out);
      }
      case "GETRANGE":
      case "SUBSTR": {
        arity(a, cmd, 4, true);
        byte[] v = ks.get(a[1], byte[].class);
        if (v == null) return Resp.bulk(new byte[0]);
        int[] r = range(lng(a[2]), lng(a[3]), v.length);
        return Resp.bulk(r == null ? new byte[0] : Arrays.copyOfRange(v, r[0], r[1] + 1));
      }
      case "SETRANGE": {
        arity(a, cmd, 4, true);
        long off = lng(a[2]);
        if (off < 0) throw new Fail("ERR offset is out of range");
        byte[] v = ks.get(a[1], byte[].class);
        if (v == null) v = new byte[0];
        if (a[3].length == 0) return Resp.integer(v.length);
        byte[] nv = Arrays.copyOf(v, (int) Math.max(v.length, off + a[3].length));
        System.arraycopy(a[3], 0, nv, (int) off, a[3].length);
        ks.setString(a[1], nv, true);
        return Resp.integer(nv.length);
      }
      case "SETBIT":
        return setbit(a);
      case "GETBIT": {
        arity(a, cmd, 3, true);
        long off = lng(a[2]);
        byte[] v = ks.get(a[1], byte[].class);
        int idx = (int) (off >> 3);
        if (v == null || idx >= v.length) return Resp.ZERO;
        return Resp.integer((v[idx] & (1 << (7 - (off & 7)))) != 0 ? 1 : 0);
      }
      case "BITCOUNT":
        return bitcount(a);
      case "MGET": {
        arity(a, cmd, 2, false);
        List<RedisMessage> out = new ArrayList<>();
        for (int i = 1; i < a.length; i++) {
          Entry e = ks.entry(new Key(a[i]));
          out.add(e != null && e.value instanceof byte[] v ? Resp.bulk(v) : Resp.NIL);
        }
        return Resp.array(out);
      }
      case "MSET": {
        if (a.length < 3 || (a.length - 1) % 2 != 0)
          throw new Fail("ERR wrong number of arguments for 'mset' command");
        for (int i = 1; i < a.length; i += 2) ks.setString(a[i], a[i + 1], false);
        return Resp.OK;
      }
      default:
        return null;
    }
  }

  private static byte[] concat(byte[] x, byte[] y) {
    byte[] r = Arrays.copyOf(x, x.length + y.length);
    System.arraycopy(y, 0, r, x.length, y.length);
    return r;
  }

  private RedisMessage incr(byte[] key, long by) {
    byte[] v = ks.get(key, byte[].class);
    long cur = v == null ? 0 : lng(v);
    long n;
    try {
      n = Math.addExact(cur, by);
    } catch (ArithmeticException e) {
      throw new Fail("ERR increment or decrement would overflow");
    }
    ks.setString(key, b(Long.toString(n)), true);
    return Resp.integer(n);
  }

  private RedisMessage setbit(byte[][] a) {
    arity(a, "SETBIT", 4, true);
    long off = lng(a[2]);
    long bit = lng(a[3]);
    if (off < 0 || (bit != 0 && bit != 1))
      throw new Fail("ERR bit is not an integer or out of range");
    byte[] v = ks.get(a[1], byte[].class);
    if (v == null) v = new byte[0];
    int idx = (int) (off >> 3);
    byte[] nv = Arrays.copyOf(v, Math.max(v.length, idx + 1));
    int mask = 1 << (7 - (off & 7));
    int old = (nv[idx] & mask) != 0 ? 1 : 0;
    nv[idx] = (byte) (bit == 1 ? nv[idx] | mask : nv[idx] & ~mask);
    ks.setString(a[1], nv, true);
    return Resp.integer(old);
  }

  private RedisMessage bitcount(byte[][] a) {
    arity(a, "BITCOUNT", 2, false);
    byte[] v = ks.get(a[1], byte[].class);
    if (v == null) return Resp.ZERO;
    int from = 0;
    int to = v.length - 1;
    if (a.length >= 4) {
      int[] r = range(lng(a[2]), lng(a[3]), v.length);
      if (r == null) return Resp.ZERO;
      from = r[0];
      to = r[1];
    }
    long n = 0;
    for (int i = from; i <= to; i++) n += Integer.bitCount(v[i] & 0xff);
    return Resp.integer(n);
  }

  private RedisMessage set(byte[][] a) {
    arity(a, "SET", 3, false);
    boolean nx = false, xx = false, keep = false, getOld = false;
    long expireAt = 0;
    for (int i = 3; i < a.length; i++) {
      String o = Resp.upper(a[i]);
      switch (o) {
        case "NX" -> nx = true;
        case "XX" -> xx = true;
        case "KEEPTTL" -> keep = true;
        case "GET" -> getOld = true;
        case "EX", "PX", "EXAT", "PXAT" -> {
          if (i + 1 >= a.length) throw new Fail(SYNTAX);
          long t = lng(a[++i]);
          if (t <= 0) throw new Fail("ERR invalid expire time in 'set' command");
          long now = ks.now();
          expireAt = switch (o) {
            case "EX" -> now + t * 1000;
            case "PX" -> now + t;
            case "EXAT" -> t * 1000;
            default -> t;
          };
        }
        default -> throw new Fail(SYNTAX);
      }
    }
    if (nx && xx) throw new Fail(SYNTAX);
    Entry cur = ks.entry(new Key(a[1]));
    byte[] old = null;
    if (getOld && cur != null) {
      if (!(cur.value instanceof byte[] v)) throw new Fail(WRONGTYPE);
      old = v;
    }
    if ((nx && cur != null) || (xx && cur == null)) {
      return getOld ? Resp.bulk(old) : Resp.NIL;
    }
    ks.setString(a[1], a[2], keep);
    if (expireAt != 0) ks.data.get(new Key(a[1])).expireAt = expireAt;
    return getOld ? Resp.bulk(old) : Resp.OK;
  }

  private RedisMessage getex(byte[][] a) {
    arity(a, "GETEX", 2, false);
    byte[] v = ks.get(a[1], byte[].class);
    if (v == null) return Resp.NIL;
    Entry e = ks.entry(new Key(a[1]));
    for (int i = 2; i < a.length; i++) {
      String o = Resp.upper(a[i]);
      if (o.equals("PERSIST")) {
        e.expireAt = 0;
      } else if (i + 1 < a.length) {
        long t = lng(a[++i]);
        long now = ks.now();
        e.expireAt = switch (o) {
          case "EX" -> now + t * 1000;
          case "PX" -> now + t;
          case "EXAT" -> t * 1000;
          case "PXAT" -> t;
          default -> throw new Fail(SYNTAX);
        };
      } else {
        throw new Fail(SYNTAX);
      }
    }
    return Resp.bulk(v);
  }
}
