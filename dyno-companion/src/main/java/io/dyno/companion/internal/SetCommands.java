package io.dyno.companion.internal;

import static io.dyno.companion.internal.StoreArgs.arity;
import static io.dyno.companion.internal.StoreArgs.lng;

import io.dyno.companion.internal.Keyspace.Entry;
import io.dyno.companion.internal.Keyspace.Key;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/** Sets, held as a LinkedHashSet; SINTER/SUNION/SDIFF and their STORE forms treat a missing key as empty. */
final class SetCommands implements CommandFamily {
  private final Keyspace ks;

  SetCommands(Keyspace ks) {
    this.ks = ks;
  }

  @Override
  public RedisMessage run(String cmd, byte[][] a) {
    switch (cmd) {
      case "SADD": {
        arity(a, cmd, 3, false);
        Set<Key> s = ks.getOrCreate(a[1], LinkedHashSet.class, LinkedHashSet::new);
        int n = 0;
        for (int i = 2; i < a.length; i++) if (s.add(new Key(a[i]))) n++;
        return Resp.integer(n);
      }
      case "SREM": {
        arity(a, cmd, 3, false);
        Set<Key> s = set(a[1]);
        if (s == null) return Resp.ZERO;
        int n = 0;
        for (int i = 2; i < a.length; i++) if (s.remove(new Key(a[i]))) n++;
        ks.dropIfEmpty(a[1], s);
        return Resp.integer(n);
      }
      case "SMEMBERS": {
        arity(a, cmd, 2, true);
        Set<Key> s = set(a[1]);
        return Resp.bulkArray(s == null ? List.of() : Keyspace.keysOf(s));
      }
      case "SISMEMBER": {
        arity(a, cmd, 3, true);
        Set<Key> s = set(a[1]);
        return Resp.integer(s != null && s.contains(new Key(a[2])) ? 1 : 0);
      }
      case "SMISMEMBER": {
        arity(a, cmd, 3, false);
        Set<Key> s = set(a[1]);
        List<RedisMessage> out = new ArrayList<>();
        for (int i = 2; i < a.length; i++)
          out.add(Resp.integer(s != null && s.contains(new Key(a[i])) ? 1 : 0));
        return Resp.array(out);
      }
      case "SCARD": {
        arity(a, cmd, 2, true);
        Set<Key> s = set(a[1]);
        return Resp.integer(s == null ? 0 : s.size());
      }
      case "SPOP":
      case "SRANDMEMBER":
        return popOrRandom(cmd, a);
      case "SINTER":
      case "SUNION":
      case "SDIFF": {
        arity(a, cmd, 2, false);
        return Resp.bulkArray(Keyspace.keysOf(combine(cmd, a, 1)));
      }
      case "SINTERSTORE":
      case "SUNIONSTORE":
      case "SDIFFSTORE": {
        arity(a, cmd, 3, false);
        LinkedHashSet<Key> r = combine(cmd.substring(0, cmd.length() - 5), a, 2);
        ks.data.remove(new Key(a[1]));
        if (!r.isEmpty()) ks.data.put(new Key(a[1]), new Entry(r));
        return Resp.integer(r.size());
      }
      case "SMOVE": {
        arity(a, cmd, 4, true);
        Set<Key> src = set(a[1]);
        set(a[2]);
        if (src == null || !src.remove(new Key(a[3]))) return Resp.ZERO;
        ks.dropIfEmpty(a[1], src);
        ks.getOrCreate(a[2], LinkedHashSet.class, LinkedHashSet::new).add(new Key(a[3]));
        return Resp.ONE;
      }
      case "SSCAN": {
        byte[] match = StoreArgs.scanMatch(a, cmd);
        List<byte[]> out = new ArrayList<>();
        Set<Key> s = set(a[1]);
        if (s != null)
          for (Key k : s) if (match == null || Glob.matches(match, k.b())) out.add(k.b());
        return Resp.array(List.of(Resp.bulk("0"), Resp.bulkArray(out)));
      }
      default:
        return null;
    }
  }

  @SuppressWarnings("unchecked")
  private Set<Key> set(byte[] key) {
    return ks.get(key, LinkedHashSet.class);
  }

  private RedisMessage popOrRandom(String cmd, byte[][] a) {
    arity(a, cmd, 2, false);
    Set<Key> s = set(a[1]);
    boolean many = a.length > 2;
    long count = many ? lng(a[2]) : 1;
    if (s == null) return many ? Resp.EMPTY_ARRAY : Resp.NIL;
    List<Key> items = new ArrayList<>(s);
    Collections.shuffle(items, ThreadLocalRandom.current());
    List<byte[]> out = new ArrayList<>();
    if (cmd.equals("SRANDMEMBER") && count < 0) {
      for (int i = 0; i < -count; i++)
        out.add(items.get(ThreadLocalRandom.current().nextInt(items.size())).b());
    } else {
      for (int i = 0; i < Math.min(Math.abs(count), items.size()); i++) {
        out.add(items.get(i).b());
        if (cmd.equals("SPOP")) s.remove(items.get(i));
      }
    }
    ks.dropIfEmpty(a[1], s);
    return many ? Resp.bulkArray(out) : Resp.bulk(out.isEmpty() ? null : out.get(0));
  }

  /** @param op SINTER, SUNION or SDIFF over the keys {@code a[from..]} */
  private LinkedHashSet<Key> combine(String op, byte[][] a, int from) {
    LinkedHashSet<Key> r = null;
    for (int i = from; i < a.length; i++) {
      Set<Key> s = set(a[i]);
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
}
