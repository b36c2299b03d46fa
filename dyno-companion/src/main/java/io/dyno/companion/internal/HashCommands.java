package io.dyno.companion.internal;

import static io.dyno.companion.internal.StoreArgs.arity;
import static io.dyno.companion.internal.StoreArgs.b;
import static io.dyno.companion.internal.StoreArgs.dbl;
import static io.dyno.companion.internal.StoreArgs.dblValue;
import static io.dyno.companion.internal.StoreArgs.fmt;
import static io.dyno.companion.internal.StoreArgs.lng;

import io.dyno.companion.internal.Keyspace.Key;
import io.dyno.companion.internal.StoreArgs.Fail;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Hashes, held as a LinkedHashMap so HGETALL/HKEYS answer in insertion order. */
final class HashCommands implements CommandFamily {
  private final Keyspace ks;

  HashCommands(Keyspace ks) {
    this.ks = ks;
  }

  @Override
  public RedisMessage run(String cmd, byte[][] a) {
    switch (cmd) {
      case "HSET":
      case "HMSET": {
        if (a.length < 4 || a.length % 2 != 0)
          throw new Fail("ERR wrong number of arguments for '" + cmd.toLowerCase() + "' command");
        LinkedHashMap<Key, byte[]> h =
            ks.getOrCreate(a[1], LinkedHashMap.class, LinkedHashMap::new);
        int added = 0;
        for (int i = 2; i < a.length; i += 2) if (h.put(new Key(a[i]), a[i + 1]) == null) added++;
        return cmd.equals("HSET") ? Resp.integer(added) : Resp.OK;
      }
      case "HSETNX": {
        arity(a, cmd, 4, true);
        LinkedHashMap<Key, byte[]> h =
            ks.getOrCreate(a[1], LinkedHashMap.class, LinkedHashMap::new);
        return h.putIfAbsent(new Key(a[2]), a[3]) == null ? Resp.ONE : Resp.ZERO;
      }
      case "HGET": {
        arity(a, cmd, 3, true);
        Map<Key, byte[]> h = hash(a[1]);
        return Resp.bulk(h == null ? null : h.get(new Key(a[2])));
      }
      case "HMGET": {
        arity(a, cmd, 3, false);
        Map<Key, byte[]> h = hash(a[1]);
        List<RedisMessage> out = new ArrayList<>();
        for (int i = 2; i < a.length; i++)
          out.add(Resp.bulk(h == null ? null : h.get(new Key(a[i]))));
        return Resp.array(out);
      }
      case "HGETALL": {
        arity(a, cmd, 2, true);
        Map<Key, byte[]> h = hash(a[1]);
        List<byte[]> out = new ArrayList<>();
        if (h != null)
          h.forEach((k, v) -> {
            out.add(k.b());
            out.add(v);
          });
        return Resp.bulkArray(out);
      }
      case "HKEYS": {
        arity(a, cmd, 2, true);
        Map<Key, byte[]> h = hash(a[1]);
        return Resp.bulkArray(h == null ? List.of() : Keyspace.keysOf(h.keySet()));
      }
      case "HVALS": {
        arity(a, cmd, 2, true);
        Map<Key, byte[]> h = hash(a[1]);
        return Resp.bulkArray(h == null ? List.of() : new ArrayList<>(h.values()));
      }
      case "HLEN": {
        arity(a, cmd, 2, true);
        Map<Key, byte[]> h = hash(a[1]);
        return Resp.integer(h == null ? 0 : h.size());
      }
      case "HEXISTS": {
        arity(a, cmd, 3, true);
        Map<Key, byte[]> h = hash(a[1]);
        return Resp.integer(h != null && h.containsKey(new Key(a[2])) ? 1 : 0);
      }
      case "HSTRLEN": {
        arity(a, cmd, 3, true);
        Map<Key, byte[]> h = hash(a[1]);
        byte[] v = h == null ? null : h.get(new Key(a[2]));
        return Resp.integer(v == null ? 0 : v.length);
      }
      case "HDEL": {
        arity(a, cmd, 3, false);
        Map<Key, byte[]> h = hash(a[1]);
        if (h == null) return Resp.ZERO;
        int n = 0;
        for (int i = 2; i < a.length; i++) if (h.remove(new Key(a[i])) != null) n++;
        ks.dropIfEmpty(a[1], h);
        return Resp.integer(n);
      }
      case "HINCRBY": {
        arity(a, cmd, 4, true);
        long by = lng(a[3]);
        LinkedHashMap<Key, byte[]> h =
            ks.getOrCreate(a[1], LinkedHashMap.class, LinkedHashMap::new);
        byte[] v = h.get(new Key(a[2]));
        long cur = v == null ? 0 : lng(v, "ERR hash value is not an integer");
        long n = Math.addExact(cur, by);
        h.put(new Key(a[2]), b(Long.toString(n)));
        return Resp.integer(n);
      }
      case "HINCRBYFLOAT": {
        arity(a, cmd, 4, true);
        double by = dbl(a[3]);
        LinkedHashMap<Key, byte[]> h =
            ks.getOrCreate(a[1], LinkedHashMap.class, LinkedHashMap::new);
        byte[] v = h.get(new Key(a[2]));
        double d = (v == null ? 0 : dblValue(v)) + by;
        byte[] out = b(fmt(d));
        h.put(new Key(a[2]), out);
        return Resp.bulk(out);
      }
      case "HSCAN": {
        byte[] match = StoreArgs.scanMatch(a, cmd);
        List<byte[]> out = new ArrayList<>();
        Map<Key, byte[]> h = hash(a[1]);
        if (h != null)
          for (var e : h.entrySet())
            if (match == null || Glob.matches(match, e.getKey().b())) {
              out.add(e.getKey().b());
              out.add(e.getValue());
            }
        return Resp.array(List.of(Resp.bulk("0"), Resp.bulkArray(out)));
      }
      default:
        return null;
    }
  }

  @SuppressWarnings("unchecked")
  private Map<Key, byte[]> hash(byte[] key) {
    return ks.get(key, LinkedHashMap.class);
  }
}
