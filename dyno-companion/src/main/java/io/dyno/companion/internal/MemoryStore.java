package io.dyno.companion.internal;

import io.netty.handler.codec.redis.RedisMessage;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/**
 * A single-threaded Redis-like keyspace: strings, hashes, lists, sets, sorted sets, expiry,
 * KEYS/SCAN, CONFIG GET, INFO and SCRIPT bookkeeping. Replies and error texts follow Redis 7.
 * Not thread-safe: {@link MemoryStorage} serialises access.
 */
final class MemoryStore {
  static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
  static final String NOT_INT = "ERR value is not an integer or out of range";
  static final String NOT_FLOAT = "ERR value is not a valid float";
  static final String SYNTAX = "ERR syntax error";

  /** A byte-array key with value semantics. */
  record Key(byte[] b) {
    @Override public boolean equals(Object o) { return o instanceof Key k && Arrays.equals(b, k.b); }
    @Override public int hashCode() { return Arrays.hashCode(b); }
    long order() { return hashCode() & 0xffffffffL; }
  }

  private static final class Entry {
    Object value;
    long expireAt; // epoch ms, 0 = never

    Entry(Object value) { this.value = value; }
  }

  /** Sorted set: score per member plus (score, member) order. */
  static final class ZSet {
    final HashMap<Key, Double> scores = new HashMap<>();
    final TreeSet<Object[]> order = new TreeSet<>((x, y) -> {
      int c = Double.compare((Double) x[0], (Double) y[0]);
      return c != 0 ? c : Arrays.compareUnsigned(((Key) x[1]).b, ((Key) y[1]).b);
    });

    boolean put(Key m, double s) {
      Double old = scores.put(m, s);
      if (old != null) {
        order.remove(new Object[] {old, m});
      }
      order.add(new Object[] {s, m});
      return old == null;
    }

    boolean remove(Key m) {
      Double old = scores.remove(m);
      if (old == null) return false;
      order.remove(new Object[] {old, m});
      return true;
    }

    List<Object[]> list() { return new ArrayList<>(order); }
  }

  private static final class Fail extends RuntimeException {
    final String error;

    Fail(String error) {
      super(error, null, false, false);
      this.error = error;
    }
  }

  private final LongSupplier clock;
  private final HashMap<Key, Entry> data = new HashMap<>();
  private final Set<String> scripts = new HashSet<>();

  MemoryStore(LongSupplier clock) {
    this.clock = clock;
  }

  void flushAll() {
    data.clear();
  }

  RedisMessage execute(byte[][] a) {
    String cmd = Resp.upper(a[0]);
    try {
      return run(cmd, a);
    } catch (Fail f) {
      return Resp.err(f.error);
    }
  }

  // ---- helpers ----

  private static void arity(byte[][] a, String cmd, int min, boolean exact) {
    if (exact ? a.length != min : a.length < min) {
      throw new Fail("ERR wrong number of arguments for '" + cmd.toLowerCase() + "' command");
    }
  }

  private static long lng(byte[] b) {
    return lng(b, NOT_INT);
  }

  /** @param error the reply when {@code b} is not an integer (Redis words it per command) */
  private static long lng(byte[] b, String error) {
    try {
      return Long.parseLong(Resp.str(b));
    } catch (NumberFormatException e) {
      throw new Fail(error);
    }
  }

  private static double dbl(byte[] b) {
    String s = Resp.str(b).toLowerCase();
    switch (s) {
      case "inf", "+inf" -> { return Double.POSITIVE_INFINITY; }
      case "-inf" -> { return Double.NEGATIVE_INFINITY; }
      default -> { }
    }
    try {
      double d = Double.parseDouble(s);
      if (Double.isNaN(d)) throw new Fail(NOT_FLOAT);
      return d;
    } catch (NumberFormatException e) {
      throw new Fail(NOT_FLOAT);
    }
  }

  private static byte[] b(String s) { return s.getBytes(StandardCharsets.UTF_8); }

  static String fmt(double d) {
    if (Double.isInfinite(d)) return d > 0 ? "inf" : "-inf";
    if (d == Math.rint(d) && Math.abs(d) < 1e17) return Long.toString((long) d);
    return new BigDecimal(d).round(new java.math.MathContext(17)).stripTrailingZeros().toPlainString();
  }

  private Entry entry(Key k) {
    Entry e = data.get(k);
    if (e != null && e.expireAt != 0 && e.expireAt <= clock.getAsLong()) {
      data.remove(k);
      return null;
    }
    return e;
  }

  @SuppressWarnings("unchecked")
  private <T> T get(byte[] key, Class<T> type) {
    Entry e = entry(new Key(key));
    if (e == null) return null;
    if (!type.isInstance(e.value)) throw new Fail(WRONGTYPE);
    return (T) e.value;
  }

  private <T> T getOrCreate(byte[] key, Class<T> type, java.util.function.Supplier<T> make) {
    T v = get(key, type);
    if (v == null) {
      v = make.get();
      data.put(new Key(key), new Entry(v));
    }
    return v;
  }

  /** Removes a collection key that became empty (Redis never keeps empty collections). */
  private void dropIfEmpty(byte[] key, Object v) {
    boolean empty = v instanceof Map<?, ?> m ? m.isEmpty() : v instanceof Collection<?> c ? c.isEmpty()
        : v instanceof ZSet z && z.scores.isEmpty();
    if (empty) data.remove(new Key(key));
  }

  private void setString(byte[] key, byte[] value, boolean keepTtl) {
    Key k = new Key(key);
    Entry old = keepTtl ? entry(k) : null;
    Entry e = new Entry(value);
    if (old != null) e.expireAt = old.expireAt;
    data.put(k, e);
  }

  private static RedisMessage bulks(Collection<byte[]> items) { return Resp.bulkArray(items); }

  private static List<byte[]> keysOf(Collection<Key> ks) {
    List<byte[]> l = new ArrayList<>(ks.size());
    for (Key k : ks) l.add(k.b);
    return l;
  }

  // ---- commands ----

  private RedisMessage run(String cmd, byte[][] a) {
    switch (cmd) {
      case "PING": return a.length > 1 ? Resp.bulk(a[1]) : Resp.PONG;
      case "GET": { arity(a, cmd, 2, true); return Resp.bulk(get(a[1], byte[].class)); }
      case "SET": return set(a);
      case "SETNX": { arity(a, cmd, 3, true); if (entry(new Key(a[1])) != null) return Resp.ZERO; setString(a[1], a[2], false); return Resp.ONE; }
      case "SETEX": case "PSETEX": {
        arity(a, cmd, 4, true);
        long t = lng(a[2]);
        if (t <= 0) throw new Fail("ERR invalid expire time in '" + cmd.toLowerCase() + "' command");
        setString(a[1], a[3], false);
        data.get(new Key(a[1])).expireAt = clock.getAsLong() + (cmd.equals("SETEX") ? t * 1000 : t);
        return Resp.OK;
      }
      case "GETSET": { arity(a, cmd, 3, true); byte[] old = get(a[1], byte[].class); setString(a[1], a[2], false); return Resp.bulk(old); }
      case "GETDEL": { arity(a, cmd, 2, true); byte[] old = get(a[1], byte[].class); if (old != null) data.remove(new Key(a[1])); return Resp.bulk(old); }
      case "GETEX": return getex(a);
      case "APPEND": {
        arity(a, cmd, 3, true);
        byte[] old = get(a[1], byte[].class);
        byte[] nv = old == null ? a[2] : concat(old, a[2]);
        setString(a[1], nv, true);
        return Resp.integer(nv.length);
      }
      case "STRLEN": { arity(a, cmd, 2, true); byte[] v = get(a[1], byte[].class); return Resp.integer(v == null ? 0 : v.length); }
      case "INCR": arity(a, cmd, 2, true); return incr(a[1], 1);
      case "DECR": arity(a, cmd, 2, true); return incr(a[1], -1);
      case "INCRBY": arity(a, cmd, 3, true); return incr(a[1], lng(a[2]));
      case "DECRBY": arity(a, cmd, 3, true); return incr(a[1], Math.negateExact(lng(a[2])));
      case "INCRBYFLOAT": {
        arity(a, cmd, 3, true);
        byte[] v = get(a[1], byte[].class);
        double d = (v == null ? 0 : dblValue(v)) + dbl(a[2]);
        if (Double.isInfinite(d)) throw new Fail("ERR increment would produce NaN or Infinity");
        byte[] out = b(fmt(d));
        setString(a[1], out, true);
        return Resp.bulk(out);
      }
      case "GETRANGE": case "SUBSTR": {
        arity(a, cmd, 4, true);
        byte[] v = get(a[1], byte[].class);
        if (v == null) return Resp.bulk(new byte[0]);
        int[] r = range(lng(a[2]), lng(a[3]), v.length);
        return Resp.bulk(r == null ? new byte[0] : Arrays.copyOfRange(v, r[0], r[1] + 1));
      }
      case "SETRANGE": {
        arity(a, cmd, 4, true);
        long off = lng(a[2]);
        if (off < 0) throw new Fail("ERR offset is out of range");
        byte[] v = get(a[1], byte[].class);
        if (v == null) v = new byte[0];
        if (a[3].length == 0) return Resp.integer(v.length);
        byte[] nv = Arrays.copyOf(v, (int) Math.max(v.length, off + a[3].length));
        System.arraycopy(a[3], 0, nv, (int) off, a[3].length);
        setString(a[1], nv, true);
        return Resp.integer(nv.length);
      }
      case "SETBIT": {
        arity(a, cmd, 4, true);
        long off = lng(a[2]);
        long bit = lng(a[3]);
        if (off < 0 || (bit != 0 && bit != 1)) throw new Fail("ERR bit is not an integer or out of range");
        byte[] v = get(a[1], byte[].class);
        if (v == null) v = new byte[0];
        int idx = (int) (off >> 3);
        byte[] nv = Arrays.copyOf(v, Math.max(v.length, idx + 1));
        int mask = 1 << (7 - (off & 7));
        int old = (nv[idx] & mask) != 0 ? 1 : 0;
        nv[idx] = (byte) (bit == 1 ? nv[idx] | mask : nv[idx] & ~mask);
        setString(a[1], nv, true);
        return Resp.integer(old);
      }
      case "GETBIT": {
        arity(a, cmd, 3, true);
        long off = lng(a[2]);
        byte[] v = get(a[1], byte[].class);
        int idx = (int) (off >> 3);
        if (v == null || idx >= v.length) return Resp.ZERO;
        return Resp.integer((v[idx] & (1 << (7 - (off & 7)))) != 0 ? 1 : 0);
      }
      case "BITCOUNT": {
        arity(a, cmd, 2, false);
        byte[] v = get(a[1], byte[].class);
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
      case "MGET": {
        arity(a, cmd, 2, false);
        List<RedisMessage> out = new ArrayList<>();
        for (int i = 1; i < a.length; i++) {
          Entry e = entry(new Key(a[i]));
          out.add(e != null && e.value instanceof byte[] v ? Resp.bulk(v) : Resp.NIL);
        }
        return Resp.array(out);
      }
      case "MSET": {
        if (a.length < 3 || (a.length - 1) % 2 != 0) throw new Fail("ERR wrong number of arguments for 'mset' command");
        for (int i = 1; i < a.length; i += 2) setString(a[i], a[i + 1], false);
        return Resp.OK;
      }
      // ---- keys ----
      case "DEL": case "UNLINK": {
        arity(a, cmd, 2, false);
        int n = 0;
        for (int i = 1; i < a.length; i++) if (entry(new Key(a[i])) != null) { data.remove(new Key(a[i])); n++; }
        return Resp.integer(n);
      }
      case "EXISTS": case "TOUCH": {
        arity(a, cmd, 2, false);
        int n = 0;
        for (int i = 1; i < a.length; i++) if (entry(new Key(a[i])) != null) n++;
        return Resp.integer(n);
      }
      case "EXPIRE": case "PEXPIRE": case "EXPIREAT": case "PEXPIREAT": {
        arity(a, cmd, 3, false);
        Entry e = entry(new Key(a[1]));
        if (e == null) return Resp.ZERO;
        long t = lng(a[2]);
        long at = switch (cmd) {
          case "EXPIRE" -> clock.getAsLong() + t * 1000;
          case "PEXPIRE" -> clock.getAsLong() + t;
          case "EXPIREAT" -> t * 1000;
          default -> t;
        };
        if (at <= clock.getAsLong()) {
          data.remove(new Key(a[1]));
        } else {
          e.expireAt = at;
        }
        return Resp.ONE;
      }
      case "PERSIST": {
        arity(a, cmd, 2, true);
        Entry e = entry(new Key(a[1]));
        if (e == null || e.expireAt == 0) return Resp.ZERO;
        e.expireAt = 0;
        return Resp.ONE;
      }
      case "TTL": case "PTTL": {
        arity(a, cmd, 2, true);
        Entry e = entry(new Key(a[1]));
        if (e == null) return Resp.integer(-2);
        if (e.expireAt == 0) return Resp.integer(-1);
        long ms = e.expireAt - clock.getAsLong();
        return Resp.integer(cmd.equals("TTL") ? (ms + 500) / 1000 : ms);
      }
      case "TYPE": { arity(a, cmd, 2, true); Entry e = entry(new Key(a[1])); return Resp.simple(e == null ? "none" : typeName(e.value)); }
      case "KEYS": {
        arity(a, cmd, 2, true);
        List<byte[]> out = new ArrayList<>();
        for (Key k : new ArrayList<>(data.keySet())) {
          if (entry(k) != null && Glob.matches(a[1], k.b)) out.add(k.b);
        }
        return bulks(out);
      }
      case "SCAN": return scan(a);
      case "INFO": {
        int expires = 0;
        for (Entry e : data.values()) if (e.expireAt != 0) expires++;
        String s = "# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\nexecutable:dyno-companion\r\n"
            + "# Clients\r\nconnected_clients:1\r\n# Keyspace\r\n"
            + (data.isEmpty() ? "" : "db0:keys=" + data.size() + ",expires=" + expires + ",avg_ttl=0\r\n");
        return Resp.bulk(s);
      }
      case "CONFIG": return configGet(a);
      case "SCRIPT": return script(a);
      case "EVAL": case "EVALSHA":
        return Resp.err("ERR the companion's in-memory backend cannot run Lua scripts (" + cmd + "); use Backend.REDIS");
      // ---- hashes ----
      case "HSET": case "HMSET": {
        if (a.length < 4 || a.length % 2 != 0) throw new Fail("ERR wrong number of arguments for '" + cmd.toLowerCase() + "' command");
        LinkedHashMap<Key, byte[]> h = getOrCreate(a[1], LinkedHashMap.class, LinkedHashMap::new);
        int added = 0;
        for (int i = 2; i < a.length; i += 2) if (h.put(new Key(a[i]), a[i + 1]) == null) added++;
        return cmd.equals("HSET") ? Resp.integer(added) : Resp.OK;
      }
      case "HSETNX": {
        arity(a, cmd, 4, true);
        LinkedHashMap<Key, byte[]> h = getOrCreate(a[1], LinkedHashMap.class, LinkedHashMap::new);
        return h.putIfAbsent(new Key(a[2]), a[3]) == null ? Resp.ONE : Resp.ZERO;
      }
      case "HGET": { arity(a, cmd, 3, true); Map<Key, byte[]> h = get(a[1], LinkedHashMap.class); return Resp.bulk(h == null ? null : h.get(new Key(a[2]))); }
      case "HMGET": {
        arity(a, cmd, 3, false);
        Map<Key, byte[]> h = get(a[1], LinkedHashMap.class);
        List<RedisMessage> out = new ArrayList<>();
        for (int i = 2; i < a.length; i++) out.add(Resp.bulk(h == null ? null : h.get(new Key(a[i]))));
        return Resp.array(out);
      }
      case "HGETALL": {
        arity(a, cmd, 2, true);
        Map<Key, byte[]> h = get(a[1], LinkedHashMap.class);
        List<byte[]> out = new ArrayList<>();
        if (h != null) h.forEach((k, v) -> { out.add(k.b); out.add(v); });
        return bulks(out);
      }
      case "HKEYS": { arity(a, cmd, 2, true); Map<Key, byte[]> h = get(a[1], LinkedHashMap.class); return bulks(h == null ? List.of() : keysOf(h.keySet())); }
      case "HVALS": { arity(a, cmd, 2, true); Map<Key, byte[]> h = get(a[1], LinkedHashMap.class); return bulks(h == null ? List.of() : new ArrayList<>(h.values())); }
      case "HLEN": { arity(a, cmd, 2, true); Map<Key, byte[]> h = get(a[1], LinkedHashMap.class); return Resp.integer(h == null ? 0 : h.size()); }
      case "HEXISTS": { arity(a, cmd, 3, true); Map<Key, byte[]> h = get(a[1], LinkedHashMap.class); return Resp.integer(h != null && h.containsKey(new Key(a[2])) ? 1 : 0); }
      case "HSTRLEN": { arity(a, cmd, 3, true); Map<Key, byte[]> h = get(a[1], LinkedHashMap.class); byte[] v = h == null ? null : h.get(new Key(a[2])); return Resp.integer(v == null ? 0 : v.length); }
      case "HDEL": {
        arity(a, cmd, 3, false);
        Map<Key, byte[]> h = get(a[1], LinkedHashMap.class);
        if (h == null) return Resp.ZERO;
        int n = 0;
        for (int i = 2; i < a.length; i++) if (h.remove(new Key(a[i])) != null) n++;
        dropIfEmpty(a[1], h);
        return Resp.integer(n);
      }
      case "HINCRBY": {
        arity(a, cmd, 4, true);
        long by = lng(a[3]);
        LinkedHashMap<Key, byte[]> h = getOrCreate(a[1], LinkedHashMap.class, LinkedHashMap::new);
        byte[] v = h.get(new Key(a[2]));
        long cur = v == null ? 0 : lng(v, "ERR hash value is not an integer");
        long n = Math.addExact(cur, by);
        h.put(new Key(a[2]), b(Long.toString(n)));
        return Resp.integer(n);
      }
      case "HINCRBYFLOAT": {
        arity(a, cmd, 4, true);
        double by = dbl(a[3]);
        LinkedHashMap<Key, byte[]> h = getOrCreate(a[1], LinkedHashMap.class, LinkedHashMap::new);
        byte[] v = h.get(new Key(a[2]));
        double d = (v == null ? 0 : dblValue(v)) + by;
        byte[] out = b(fmt(d));
        h.put(new Key(a[2]), out);
        return Resp.bulk(out);
      }
      case "HSCAN": case "SSCAN": case "ZSCAN": return collectionScan(cmd, a);
      // ---- lists ----
      case "LPUSH": case "RPUSH": case "LPUSHX": case "RPUSHX": {
        arity(a, cmd, 3, false);
        ArrayList<byte[]> l = cmd.endsWith("X") ? get(a[1], ArrayList.class) : getOrCreate(a[1], ArrayList.class, ArrayList::new);
        if (l == null) return Resp.ZERO;
        for (int i = 2; i < a.length; i++) {
          if (cmd.startsWith("L")) l.add(0, a[i]); else l.add(a[i]);
        }
        return Resp.integer(l.size());
      }
      case "LPOP": case "RPOP": {
        arity(a, cmd, 2, false);
        ArrayList<byte[]> l = get(a[1], ArrayList.class);
        if (a.length > 2) {
          long n = lng(a[2]);
          if (n < 0) throw new Fail("ERR value is out of range, must be positive");
          if (l == null) return Resp.NIL_ARRAY;
          List<byte[]> out = new ArrayList<>();
          for (int i = 0; i < n && !l.isEmpty(); i++) out.add(cmd.equals("LPOP") ? l.remove(0) : l.remove(l.size() - 1));
          dropIfEmpty(a[1], l);
          return bulks(out);
        }
        if (l == null) return Resp.NIL;
        byte[] v = cmd.equals("LPOP") ? l.remove(0) : l.remove(l.size() - 1);
        dropIfEmpty(a[1], l);
        return Resp.bulk(v);
      }
      case "LLEN": { arity(a, cmd, 2, true); List<byte[]> l = get(a[1], ArrayList.class); return Resp.integer(l == null ? 0 : l.size()); }
      case "LRANGE": {
        arity(a, cmd, 4, true);
        List<byte[]> l = get(a[1], ArrayList.class);
        long s = lng(a[2]);
        long e = lng(a[3]);
        if (l == null) return Resp.EMPTY_ARRAY;
        int[] r = range(s, e, l.size());
        return bulks(r == null ? List.of() : new ArrayList<>(l.subList(r[0], r[1] + 1)));
      }
      case "LINDEX": {
        arity(a, cmd, 3, true);
        List<byte[]> l = get(a[1], ArrayList.class);
        long i = lng(a[2]);
        if (l == null) return Resp.NIL;
        if (i < 0) i += l.size();
        return i < 0 || i >= l.size() ? Resp.NIL : Resp.bulk(l.get((int) i));
      }
      case "LSET": {
        arity(a, cmd, 4, true);
        List<byte[]> l = get(a[1], ArrayList.class);
        if (l == null) throw new Fail("ERR no such key");
        long i = lng(a[2]);
        if (i < 0) i += l.size();
        if (i < 0 || i >= l.size()) throw new Fail("ERR index out of range");
        l.set((int) i, a[3]);
        return Resp.OK;
      }
      case "LREM": {
        arity(a, cmd, 4, true);
        List<byte[]> l = get(a[1], ArrayList.class);
        long count = lng(a[2]);
        if (l == null) return Resp.ZERO;
        int removed = 0;
        if (count >= 0) {
          for (Iterator<byte[]> it = l.iterator(); it.hasNext() && (count == 0 || removed < count); ) {
            if (Arrays.equals(it.next(), a[3])) { it.remove(); removed++; }
          }
        } else {
          for (int i = l.size() - 1; i >= 0 && removed < -count; i--) {
            if (Arrays.equals(l.get(i), a[3])) { l.remove(i); removed++; }
          }
        }
        dropIfEmpty(a[1], l);
        return Resp.integer(removed);
      }
      case "LTRIM": {
        arity(a, cmd, 4, true);
        ArrayList<byte[]> l = get(a[1], ArrayList.class);
        long s = lng(a[2]);
        long e = lng(a[3]);
        if (l == null) return Resp.OK;
        int[] r = range(s, e, l.size());
        List<byte[]> kept = r == null ? List.of() : new ArrayList<>(l.subList(r[0], r[1] + 1));
        l.clear();
        l.addAll(kept);
        dropIfEmpty(a[1], l);
        return Resp.OK;
      }
      case "LINSERT": {
        arity(a, cmd, 5, true);
        String where = Resp.upper(a[2]);
        if (!where.equals("BEFORE") && !where.equals("AFTER")) throw new Fail(SYNTAX);
        List<byte[]> l = get(a[1], ArrayList.class);
        if (l == null) return Resp.ZERO;
        for (int i = 0; i < l.size(); i++) {
          if (Arrays.equals(l.get(i), a[3])) {
            l.add(where.equals("BEFORE") ? i : i + 1, a[4]);
            return Resp.integer(l.size());
          }
        }
        return Resp.integer(-1);
      }
      case "RPOPLPUSH": {
        arity(a, cmd, 3, true);
        ArrayList<byte[]> src = get(a[1], ArrayList.class);
        if (src == null) return Resp.NIL;
        get(a[2], ArrayList.class); // type check first
        byte[] v = src.remove(src.size() - 1);
        dropIfEmpty(a[1], src);
        getOrCreate(a[2], ArrayList.class, ArrayList::new).add(0, v);
        return Resp.bulk(v);
      }
      // ---- sets ----
      case "SADD": {
        arity(a, cmd, 3, false);
        LinkedHashSet<Key> s = getOrCreate(a[1], LinkedHashSet.class, LinkedHashSet::new);
        int n = 0;
        for (int i = 2; i < a.length; i++) if (s.add(new Key(a[i]))) n++;
        return Resp.integer(n);
      }
      case "SREM": {
        arity(a, cmd, 3, false);
        Set<Key> s = get(a[1], LinkedHashSet.class);
        if (s == null) return Resp.ZERO;
        int n = 0;
        for (int i = 2; i < a.length; i++) if (s.remove(new Key(a[i]))) n++;
        dropIfEmpty(a[1], s);
        return Resp.integer(n);
      }
      case "SMEMBERS": { arity(a, cmd, 2, true); Set<Key> s = get(a[1], LinkedHashSet.class); return bulks(s == null ? List.of() : keysOf(s)); }
      case "SISMEMBER": { arity(a, cmd, 3, true); Set<Key> s = get(a[1], LinkedHashSet.class); return Resp.integer(s != null && s.contains(new Key(a[2])) ? 1 : 0); }
      case "SMISMEMBER": {
        arity(a, cmd, 3, false);
        Set<Key> s = get(a[1], LinkedHashSet.class);
        List<RedisMessage> out = new ArrayList<>();
        for (int i = 2; i < a.length; i++) out.add(Resp.integer(s != null && s.contains(new Key(a[i])) ? 1 : 0));
        return Resp.array(out);
      }
      case "SCARD": { arity(a, cmd, 2, true); Set<Key> s = get(a[1], LinkedHashSet.class); return Resp.integer(s == null ? 0 : s.size()); }
      case "SPOP": case "SRANDMEMBER": {
        arity(a, cmd, 2, false);
        Set<Key> s = get(a[1], LinkedHashSet.class);
        boolean many = a.length > 2;
        long count = many ? lng(a[2]) : 1;
        if (s == null) return many ? Resp.EMPTY_ARRAY : Resp.NIL;
        List<Key> items = new ArrayList<>(s);
        java.util.Collections.shuffle(items, ThreadLocalRandom.current());
        List<byte[]> out = new ArrayList<>();
        if (cmd.equals("SRANDMEMBER") && count < 0) {
          for (int i = 0; i < -count; i++) out.add(items.get(ThreadLocalRandom.current().nextInt(items.size())).b);
        } else {
          for (int i = 0; i < Math.min(Math.abs(count), items.size()); i++) {
            out.add(items.get(i).b);
            if (cmd.equals("SPOP")) s.remove(items.get(i));
          }
        }
        dropIfEmpty(a[1], s);
        return many ? bulks(out) : Resp.bulk(out.isEmpty() ? null : out.get(0));
      }
      case "SINTER": case "SUNION": case "SDIFF": {
        arity(a, cmd, 2, false);
        return bulks(keysOf(setOp(cmd, a, 1)));
      }
      case "SINTERSTORE": case "SUNIONSTORE": case "SDIFFSTORE": {
        arity(a, cmd, 3, false);
        LinkedHashSet<Key> r = setOp(cmd.substring(0, cmd.length() - 5), a, 2);
        data.remove(new Key(a[1]));
        if (!r.isEmpty()) data.put(new Key(a[1]), new Entry(r));
        return Resp.integer(r.size());
      }
      case "SMOVE": {
        arity(a, cmd, 4, true);
        Set<Key> src = get(a[1], LinkedHashSet.class);
        get(a[2], LinkedHashSet.class);
        if (src == null || !src.remove(new Key(a[3]))) return Resp.ZERO;
        dropIfEmpty(a[1], src);
        getOrCreate(a[2], LinkedHashSet.class, LinkedHashSet::new).add(new Key(a[3]));
        return Resp.ONE;
      }
      // ---- sorted sets ----
      case "ZADD": return zadd(a);
      case "ZINCRBY": {
        arity(a, cmd, 4, true);
        double by = dbl(a[2]);
        ZSet z = getOrCreate(a[1], ZSet.class, ZSet::new);
        Double cur = z.scores.get(new Key(a[3]));
        double n = (cur == null ? 0 : cur) + by;
        z.put(new Key(a[3]), n);
        return Resp.bulk(fmt(n));
      }
      case "ZREM": {
        arity(a, cmd, 3, false);
        ZSet z = get(a[1], ZSet.class);
        if (z == null) return Resp.ZERO;
        int n = 0;
        for (int i = 2; i < a.length; i++) if (z.remove(new Key(a[i]))) n++;
        dropIfEmpty(a[1], z);
        return Resp.integer(n);
      }
      case "ZSCORE": { arity(a, cmd, 3, true); ZSet z = get(a[1], ZSet.class); Double d = z == null ? null : z.scores.get(new Key(a[2])); return d == null ? Resp.NIL : Resp.bulk(fmt(d)); }
      case "ZMSCORE": {
        arity(a, cmd, 3, false);
        ZSet z = get(a[1], ZSet.class);
        List<RedisMessage> out = new ArrayList<>();
        for (int i = 2; i < a.length; i++) {
          Double d = z == null ? null : z.scores.get(new Key(a[i]));
          out.add(d == null ? Resp.NIL : Resp.bulk(fmt(d)));
        }
        return Resp.array(out);
      }
      case "ZCARD": { arity(a, cmd, 2, true); ZSet z = get(a[1], ZSet.class); return Resp.integer(z == null ? 0 : z.scores.size()); }
      case "ZCOUNT": {
        arity(a, cmd, 4, true);
        ZSet z = get(a[1], ZSet.class);
        ScoreBound min = ScoreBound.parse(a[2]);
        ScoreBound max = ScoreBound.parse(a[3]);
        if (z == null) return Resp.ZERO;
        int n = 0;
        for (Object[] e : z.order) if (ScoreBound.within(min, max, e)) n++;
        return Resp.integer(n);
      }
      case "ZRANK": case "ZREVRANK": {
        arity(a, cmd, 3, true);
        ZSet z = get(a[1], ZSet.class);
        if (z == null || !z.scores.containsKey(new Key(a[2]))) return Resp.NIL;
        List<Object[]> l = z.list();
        for (int i = 0; i < l.size(); i++) {
          if (l.get(i)[1].equals(new Key(a[2]))) return Resp.integer(cmd.equals("ZRANK") ? i : l.size() - 1 - i);
        }
        return Resp.NIL;
      }
      case "ZRANGE": case "ZREVRANGE": case "ZRANGEBYSCORE": case "ZREVRANGEBYSCORE": return zrange(cmd, a);
      case "ZREMRANGEBYRANK": {
        arity(a, cmd, 4, true);
        ZSet z = get(a[1], ZSet.class);
        long s = lng(a[2]);
        long e = lng(a[3]);
        if (z == null) return Resp.ZERO;
        List<Object[]> l = z.list();
        int[] r = range(s, e, l.size());
        if (r == null) return Resp.ZERO;
        for (int i = r[0]; i <= r[1]; i++) z.remove((Key) l.get(i)[1]);
        dropIfEmpty(a[1], z);
        return Resp.integer(r[1] - r[0] + 1);
      }
      case "ZREMRANGEBYSCORE": {
        arity(a, cmd, 4, true);
        ZSet z = get(a[1], ZSet.class);
        ScoreBound min = ScoreBound.parse(a[2]);
        ScoreBound max = ScoreBound.parse(a[3]);
        if (z == null) return Resp.ZERO;
        int n = 0;
        for (Object[] e : z.list()) {
          if (ScoreBound.within(min, max, e)) { z.remove((Key) e[1]); n++; }
        }
        dropIfEmpty(a[1], z);
        return Resp.integer(n);
      }
      case "ZPOPMIN": case "ZPOPMAX": {
        arity(a, cmd, 2, false);
        ZSet z = get(a[1], ZSet.class);
        long count = a.length > 2 ? lng(a[2]) : 1;
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; z != null && i < count && !z.order.isEmpty(); i++) {
          Object[] e = cmd.equals("ZPOPMIN") ? z.order.first() : z.order.last();
          z.remove((Key) e[1]);
          out.add(((Key) e[1]).b);
          out.add(b(fmt((Double) e[0])));
        }
        if (z != null) dropIfEmpty(a[1], z);
        return bulks(out);
      }
      default:
        return Resp.err("ERR unknown command '" + Resp.str(a[0]) + "', with args beginning with: ");
    }
  }

  private static byte[] concat(byte[] x, byte[] y) {
    byte[] r = Arrays.copyOf(x, x.length + y.length);
    System.arraycopy(y, 0, r, x.length, y.length);
    return r;
  }

  private static double dblValue(byte[] v) {
    try {
      return Double.parseDouble(Resp.str(v));
    } catch (NumberFormatException e) {
      throw new Fail(NOT_FLOAT);
    }
  }

  private static String typeName(Object v) {
    if (v instanceof byte[]) return "string";
    if (v instanceof LinkedHashMap) return "hash";
    if (v instanceof ArrayList) return "list";
    if (v instanceof LinkedHashSet) return "set";
    return "zset";
  }

  /** Redis start/end index semantics; null when empty. Returns inclusive [from, to]. */
  private static int[] range(long start, long end, int len) {
    if (start < 0) start += len;
    if (end < 0) end += len;
    if (start < 0) start = 0;
    if (end >= len) end = len - 1;
    if (start > end || start >= len) return null;
    return new int[] {(int) start, (int) end};
  }

  private RedisMessage incr(byte[] key, long by) {
    byte[] v = get(key, byte[].class);
    long cur = v == null ? 0 : lng(v);
    long n;
    try {
      n = Math.addExact(cur, by);
    } catch (ArithmeticException e) {
      throw new Fail("ERR increment or decrement would overflow");
    }
    setString(key, b(Long.toString(n)), true);
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
          long now = clock.getAsLong();
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
    Entry cur = entry(new Key(a[1]));
    byte[] old = null;
    if (getOld && cur != null) {
      if (!(cur.value instanceof byte[] v)) throw new Fail(WRONGTYPE);
      old = v;
    }
    if ((nx && cur != null) || (xx && cur == null)) {
      return getOld ? Resp.bulk(old) : Resp.NIL;
    }
    setString(a[1], a[2], keep);
    if (expireAt != 0) data.get(new Key(a[1])).expireAt = expireAt;
    return getOld ? Resp.bulk(old) : Resp.OK;
  }

  private RedisMessage getex(byte[][] a) {
    arity(a, "GETEX", 2, false);
    byte[] v = get(a[1], byte[].class);
    if (v == null) return Resp.NIL;
    Entry e = entry(new Key(a[1]));
    for (int i = 2; i < a.length; i++) {
      String o = Resp.upper(a[i]);
      if (o.equals("PERSIST")) {
        e.expireAt = 0;
      } else if (i + 1 < a.length) {
        long t = lng(a[++i]);
        long now = clock.getAsLong();
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

  private RedisMessage scan(byte[][] a) {
    arity(a, "SCAN", 2, false);
    long cursor;
    try {
      cursor = Long.parseUnsignedLong(Resp.str(a[1]));
    } catch (NumberFormatException e) {
      throw new Fail("ERR invalid cursor");
    }
    byte[] match = null;
    String type = null;
    long count = 10;
    for (int i = 2; i < a.length; i++) {
      String o = Resp.upper(a[i]);
      if (i + 1 >= a.length) throw new Fail(SYNTAX);
      switch (o) {
        case "MATCH" -> match = a[++i];
        case "COUNT" -> {
          count = lng(a[++i]);
          if (count < 1) throw new Fail(SYNTAX);
        }
        case "TYPE" -> type = Resp.str(a[++i]).toLowerCase();
        default -> throw new Fail(SYNTAX);
      }
    }
    // Keys ordered by their 32-bit hash; the cursor is the next hash to visit, so a key present for
    // the whole scan is returned exactly once even when others come and go.
    List<Key> keys = new ArrayList<>();
    for (Key k : data.keySet()) if (k.order() >= cursor) keys.add(k);
    keys.sort((x, y) -> Long.compare(x.order(), y.order()));
    List<byte[]> out = new ArrayList<>();
    long next = 0;
    int i = 0;
    int visited = 0;
    while (i < keys.size()) {
      long h = keys.get(i).order();
      if (visited >= count) {
        next = h;
        break;
      }
      for (; i < keys.size() && keys.get(i).order() == h; i++) {
        Key k = keys.get(i);
        Entry e = entry(k);
        visited++;
        if (e == null) continue;
        if (match != null && !Glob.matches(match, k.b)) continue;
        if (type != null && !typeName(e.value).equals(type)) continue;
        out.add(k.b);
      }
    }
    return Resp.array(List.of(Resp.bulk(Long.toString(next)), bulks(out)));
  }

  private RedisMessage collectionScan(String cmd, byte[][] a) {
    arity(a, cmd, 3, false);
    byte[] match = null;
    for (int i = 3; i + 1 < a.length; i += 2) {
      if (Resp.upper(a[i]).equals("MATCH")) match = a[i + 1];
    }
    List<byte[]> out = new ArrayList<>();
    switch (cmd) {
      case "HSCAN" -> {
        Map<Key, byte[]> h = get(a[1], LinkedHashMap.class);
        if (h != null) for (var e : h.entrySet()) if (match == null || Glob.matches(match, e.getKey().b)) { out.add(e.getKey().b); out.add(e.getValue()); }
      }
      case "SSCAN" -> {
        Set<Key> s = get(a[1], LinkedHashSet.class);
        if (s != null) for (Key k : s) if (match == null || Glob.matches(match, k.b)) out.add(k.b);
      }
      default -> {
        ZSet z = get(a[1], ZSet.class);
        if (z != null) for (Object[] e : z.order) {
          Key k = (Key) e[1];
          if (match == null || Glob.matches(match, k.b)) { out.add(k.b); out.add(b(fmt((Double) e[0]))); }
        }
      }
    }
    return Resp.array(List.of(Resp.bulk("0"), bulks(out)));
  }

  private LinkedHashSet<Key> setOp(String op, byte[][] a, int from) {
    LinkedHashSet<Key> r = null;
    for (int i = from; i < a.length; i++) {
      Set<Key> s = get(a[i], LinkedHashSet.class);
      Set<Key> cur = s == null ? Set.of() : s;
      if (r == null) {
        r = new LinkedHashSet<>(cur);
      } else if (op.equals("SINTER")) {
        r.retainAll(cur);
      } else if (op.equals("SUNION")) {
        r.addAll(cur);
      } else {
        r.removeAll(cur);
      }
    }
    return r;
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
    if (incr && a.length - i != 2) throw new Fail("ERR INCR option supports a single increment-element pair");
    double[] scores = new double[(a.length - i) / 2];
    for (int j = 0; j < scores.length; j++) scores[j] = dbl(a[i + 2 * j]);
    ZSet z = get(a[1], ZSet.class);
    if (z == null) {
      if (xx) return incr ? Resp.NIL : Resp.ZERO;
      z = new ZSet();
      data.put(new Key(a[1]), new Entry(z));
    }
    int added = 0, changed = 0;
    Double last = null;
    for (int j = 0; j < scores.length; j++) {
      Key m = new Key(a[i + 2 * j + 1]);
      Double old = z.scores.get(m);
      double s = incr ? (old == null ? 0 : old) + scores[j] : scores[j];
      if ((nx && old != null) || (xx && old == null) || (old != null && gt && s <= old) || (old != null && lt && s >= old)) {
        continue;
      }
      z.put(m, s);
      last = s;
      if (old == null) added++;
      else if (old != s) changed++;
    }
    dropIfEmpty(a[1], z);
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
    ZSet z = get(a[1], ZSet.class);
    List<Object[]> l = z == null ? new ArrayList<>() : z.list();
    if (rev) java.util.Collections.reverse(l);
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
      out.add(((Key) e[1]).b);
      if (withScores) out.add(b(fmt((Double) e[0])));
    }
    return bulks(out);
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

    boolean belowOk(double x) { return exclusive ? x > v : x >= v; }
    boolean aboveOk(double x) { return exclusive ? x < v : x <= v; }

    /** Whether a sorted-set entry {score, member} lies between {@code min} and {@code max}. */
    static boolean within(ScoreBound min, ScoreBound max, Object[] entry) {
      double score = (Double) entry[0];
      return min.belowOk(score) && max.aboveOk(score);
    }
  }

  private RedisMessage configGet(byte[][] a) {
    arity(a, "CONFIG", 3, false);
    Map<String, String> cfg = new LinkedHashMap<>();
    cfg.put("save", "");
    cfg.put("appendonly", "no");
    cfg.put("maxmemory", "0");
    cfg.put("maxmemory-policy", "noeviction");
    cfg.put("databases", "1");
    cfg.put("port", "0");
    List<byte[]> out = new ArrayList<>();
    for (int i = 2; i < a.length; i++) {
      for (var e : cfg.entrySet()) {
        if (Glob.matches(b(Resp.str(a[i]).toLowerCase()), b(e.getKey()))) {
          out.add(b(e.getKey()));
          out.add(b(e.getValue()));
        }
      }
    }
    return bulks(out);
  }

  private RedisMessage script(byte[][] a) {
    arity(a, "SCRIPT", 2, false);
    String sub = Resp.upper(a[1]);
    switch (sub) {
      case "LOAD" -> {
        arity(a, "SCRIPT|LOAD", 3, true);
        String sha = sha1(a[2]);
        scripts.add(sha);
        return Resp.bulk(sha);
      }
      case "EXISTS" -> {
        List<RedisMessage> out = new ArrayList<>();
        for (int i = 2; i < a.length; i++) out.add(Resp.integer(scripts.contains(Resp.str(a[i]).toLowerCase()) ? 1 : 0));
        return Resp.array(out);
      }
      case "FLUSH" -> {
        scripts.clear();
        return Resp.OK;
      }
      case "KILL" -> {
        return Resp.err("NOTBUSY No scripts in execution right now.");
      }
      default -> {
        return Resp.err("ERR unknown subcommand '" + Resp.str(a[1]) + "'. Try SCRIPT HELP.");
      }
    }
  }

  private static String sha1(byte[] b) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-1").digest(b);
      StringBuilder sb = new StringBuilder();
      for (byte x : d) sb.append(String.format("%02x", x & 0xff));
      return sb.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
