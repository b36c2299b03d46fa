package io.dyno.companion.internal;

import static io.dyno.companion.internal.StoreArgs.SYNTAX;
import static io.dyno.companion.internal.StoreArgs.arity;
import static io.dyno.companion.internal.StoreArgs.lng;

import io.dyno.companion.internal.Keyspace.Entry;
import io.dyno.companion.internal.Keyspace.Key;
import io.dyno.companion.internal.StoreArgs.Fail;
import io.netty.handler.codec.redis.RedisMessage;
import java.util.ArrayList;
import java.util.List;

/** Commands on keys of any type: deletion, existence, expiry, TYPE, KEYS and SCAN. */
final class KeyCommands implements CommandFamily {
  private final Keyspace ks;

  KeyCommands(Keyspace ks) {
    this.ks = ks;
  }

  @Override
  public RedisMessage run(String cmd, byte[][] a) {
    switch (cmd) {
      case "DEL":
      case "UNLINK": {
        arity(a, cmd, 2, false);
        int n = 0;
        for (int i = 1; i < a.length; i++)
          if (ks.entry(new Key(a[i])) != null) {
            ks.data.remove(new Key(a[i]));
            n++;
          }
        return Resp.integer(n);
      }
      case "EXISTS":
      case "TOUCH": {
        arity(a, cmd, 2, false);
        int n = 0;
        for (int i = 1; i < a.length; i++) if (ks.entry(new Key(a[i])) != null) n++;
        return Resp.integer(n);
      }
      case "EXPIRE":
      case "PEXPIRE":
      case "EXPIREAT":
      case "PEXPIREAT":
        return expire(cmd, a);
      case "PERSIST": {
        arity(a, cmd, 2, true);
        Entry e = ks.entry(new Key(a[1]));
        if (e == null || e.expireAt == 0) return Resp.ZERO;
        e.expireAt = 0;
        return Resp.ONE;
      }
      case "TTL":
      case "PTTL": {
        arity(a, cmd, 2, true);
        Entry e = ks.entry(new Key(a[1]));
        if (e == null) return Resp.integer(-2);
        if (e.expireAt == 0) return Resp.integer(-1);
        long ms = e.expireAt - ks.now();
        return Resp.integer(cmd.equals("TTL") ? (ms + 500) / 1000 : ms);
      }
      case "TYPE": {
        arity(a, cmd, 2, true);
        Entry e = ks.entry(new Key(a[1]));
        return Resp.simple(e == null ? "none" : Keyspace.typeName(e.value));
      }
      case "KEYS": {
        arity(a, cmd, 2, true);
        List<byte[]> out = new ArrayList<>();
        for (Key k : new ArrayList<>(ks.data.keySet())) {
          if (ks.entry(k) != null && Glob.matches(a[1], k.b())) out.add(k.b());
        }
        return Resp.bulkArray(out);
      }
      case "SCAN":
        return scan(a);
      default:
        return null;
    }
  }

  private RedisMessage expire(String cmd, byte[][] a) {
    arity(a, cmd, 3, false);
    Entry e = ks.entry(new Key(a[1]));
    if (e == null) return Resp.ZERO;
    long t = lng(a[2]);
    long at = switch (cmd) {
      case "EXPIRE" -> ks.now() + t * 1000;
      case "PEXPIRE" -> ks.now() + t;
      case "EXPIREAT" -> t * 1000;
      default -> t;
    };
    if (at <= ks.now()) {
      ks.data.remove(new Key(a[1]));
    } else {
      e.expireAt = at;
    }
    return Resp.ONE;
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
    for (Key k : ks.data.keySet()) if (k.order() >= cursor) keys.add(k);
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
        Entry e = ks.entry(k);
        visited++;
        if (e == null) continue;
        if (match != null && !Glob.matches(match, k.b())) continue;
        if (type != null && !Keyspace.typeName(e.value).equals(type)) continue;
        out.add(k.b());
      }
    }
    return Resp.array(List.of(Resp.bulk(Long.toString(next)), Resp.bulkArray(out)));
  }
}
