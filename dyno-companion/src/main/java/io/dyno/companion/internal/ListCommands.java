package io.dyno.companion.internal;

import static io.dyno.companion.internal.StoreArgs.SYNTAX;
import static io.dyno.companion.internal.StoreArgs.arity;
import static io.dyno.companion.internal.StoreArgs.lng;
import static io.dyno.companion.internal.StoreArgs.range;

import io.dyno.companion.internal.StoreArgs.Fail;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/** Lists, held as an ArrayList (head at index 0); a list emptied by a pop, LREM or LTRIM disappears. */
final class ListCommands implements CommandFamily {
  private final Keyspace ks;

  ListCommands(Keyspace ks) {
    this.ks = ks;
  }

  @Override
  public RedisMessage run(String cmd, byte[][] a) {
    switch (cmd) {
      case "LPUSH":
      case "RPUSH":
      case "LPUSHX":
      case "RPUSHX": {
        arity(a, cmd, 3, false);
        List<byte[]> l =
            cmd.endsWith("X") ? list(a[1]) : ks.getOrCreate(a[1], ArrayList.class, ArrayList::new);
        if (l == null) return Resp.ZERO;
        for (int i = 2; i < a.length; i++) {
          if (cmd.startsWith("L")) l.add(0, a[i]);
          else l.add(a[i]);
        }
        return Resp.integer(l.size());
      }
      case "LPOP":
      case "RPOP":
        return pop(cmd, a);
      case "LLEN": {
        arity(a, cmd, 2, true);
        List<byte[]> l = list(a[1]);
        return Resp.integer(l == null ? 0 : l.size());
      }
      case "LRANGE": {
        arity(a, cmd, 4, true);
        List<byte[]> l = list(a[1]);
        long s = lng(a[2]);
        long e = lng(a[3]);
        if (l == null) return Resp.EMPTY_ARRAY;
        int[] r = range(s, e, l.size());
        return Resp.bulkArray(r == null ? List.of() : new ArrayList<>(l.subList(r[0], r[1] + 1)));
      }
      case "LINDEX": {
        arity(a, cmd, 3, true);
        List<byte[]> l = list(a[1]);
        long i = lng(a[2]);
        if (l == null) return Resp.NIL;
        if (i < 0) i += l.size();
        return i < 0 || i >= l.size() ? Resp.NIL : Resp.bulk(l.get((int) i));
      }
      case "LSET": {
        arity(a, cmd, 4, true);
        List<byte[]> l = list(a[1]);
        if (l == null) throw new Fail("ERR no such key");
        long i = lng(a[2]);
        if (i < 0) i += l.size();
        if (i < 0 || i >= l.size()) throw new Fail("ERR index out of range");
        l.set((int) i, a[3]);
        return Resp.OK;
      }
      case "LREM":
        return lrem(a);
      case "LTRIM": {
        arity(a, cmd, 4, true);
        List<byte[]> l = list(a[1]);
        long s = lng(a[2]);
        long e = lng(a[3]);
        if (l == null) return Resp.OK;
        int[] r = range(s, e, l.size());
        List<byte[]> kept = r == null ? List.of() : new ArrayList<>(l.subList(r[0], r[1] + 1));
        l.clear();
        l.addAll(kept);
        ks.dropIfEmpty(a[1], l);
        return Resp.OK;
      }
      case "LINSERT": {
        arity(a, cmd, 5, true);
        String where = Resp.upper(a[2]);
        if (!where.equals("BEFORE") && !where.equals("AFTER")) throw new Fail(SYNTAX);
        List<byte[]> l = list(a[1]);
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
        List<byte[]> src = list(a[1]);
        if (src == null) return Resp.NIL;
        list(a[2]); // type check first
        byte[] v = src.remove(src.size() - 1);
        ks.dropIfEmpty(a[1], src);
        ks.getOrCreate(a[2], ArrayList.class, ArrayList::new).add(0, v);
        return Resp.bulk(v);
      }
      default:
        return null;
    }
  }

  @SuppressWarnings("unchecked")
  private List<byte[]> list(byte[] key) {
    return ks.get(key, ArrayList.class);
  }

  private RedisMessage pop(String cmd, byte[][] a) {
    arity(a, cmd, 2, false);
    List<byte[]> l = list(a[1]);
    if (a.length > 2) {
      long n = lng(a[2]);
      if (n < 0) throw new Fail("ERR value is out of range, must be positive");
      if (l == null) return Resp.NIL_ARRAY;
      List<byte[]> out = new ArrayList<>();
      for (int i = 0; i < n && !l.isEmpty(); i++)
        out.add(cmd.equals("LPOP") ? l.remove(0) : l.remove(l.size() - 1));
      ks.dropIfEmpty(a[1], l);
      return Resp.bulkArray(out);
    }
    if (l == null) return Resp.NIL;
    byte[] v = cmd.equals("LPOP") ? l.remove(0) : l.remove(l.size() - 1);
    ks.dropIfEmpty(a[1], l);
    return Resp.bulk(v);
  }

  private RedisMessage lrem(byte[][] a) {
    arity(a, "LREM", 4, true);
    List<byte[]> l = list(a[1]);
    long count = lng(a[2]);
    if (l == null) return Resp.ZERO;
    int removed = 0;
    if (count >= 0) {
      for (Iterator<byte[]> it = l.iterator(); it.hasNext() && (count == 0 || removed < count); ) {
        if (Arrays.equals(it.next(), a[3])) {
          it.remove();
          removed++;
        }
      }
    } else {
      for (int i = l.size() - 1; i >= 0 && removed < -count; i--) {
        if (Arrays.equals(l.get(i), a[3])) {
          l.remove(i);
          removed++;
        }
      }
    }
    ks.dropIfEmpty(a[1], l);
    return Resp.integer(removed);
  }
}
