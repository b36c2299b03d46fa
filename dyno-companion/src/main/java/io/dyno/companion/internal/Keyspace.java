package io.dyno.companion.internal;

import static io.dyno.companion.internal.StoreArgs.WRONGTYPE;

import io.dyno.companion.internal.StoreArgs.Fail;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The keys of the in-memory store and their expiry, shared by every command family: the one place
 * that decides when a key has expired, what type it holds (WRONGTYPE) and that empty collections vanish.
 * Not thread-safe: {@link MemoryStorage} serialises access.
 */
final class Keyspace {
  /** A byte-array key with value semantics. */
  record Key(byte[] b) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && Arrays.equals(b, k.b);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(b);
    }

    long order() {
      return hashCode() & 0xffffffffL;
    }
  }

  /** A value with its expiry: byte[] (string), LinkedHashMap (hash), ArrayList (list), LinkedHashSet (set), ZSet. */
  static final class Entry {
    Object value;
    long expireAt; // epoch ms, 0 = never

    Entry(Object value) {
      this.value = value;
    }
  }

  final LongSupplier clock;
  final HashMap<Key, Entry> data = new HashMap<>();

  Keyspace(LongSupplier clock) {
    this.clock = clock;
  }

  long now() {
    return clock.getAsLong();
  }

  /** The live entry of {@code k}, dropping it first when it has expired. */
  Entry entry(Key k) {
    Entry e = data.get(k);
    if (e != null && e.expireAt != 0 && e.expireAt <= clock.getAsLong()) {
      data.remove(k);
      return null;
    }
    return e;
  }

  /** The value of {@code key} when it holds a {@code type}, null when absent; WRONGTYPE otherwise. */
  @SuppressWarnings("unchecked")
  <T> T get(byte[] key, Class<T> type) {
    Entry e = entry(new Key(key));
    if (e == null) return null;
    if (!type.isInstance(e.value)) throw new Fail(WRONGTYPE);
    return (T) e.value;
  }

  <T> T getOrCreate(byte[] key, Class<T> type, Supplier<T> make) {
    T v = get(key, type);
    if (v == null) {
      v = make.get();
      data.put(new Key(key), new Entry(v));
    }
    return v;
  }

  /** Removes a collection key that became empty (Redis never keeps empty collections). */
  void dropIfEmpty(byte[] key, Object v) {
    boolean empty = v instanceof Map<?, ?> m
        ? m.isEmpty()
        : v instanceof Collection<?> c ? c.isEmpty() : v instanceof ZSet z && z.scores.isEmpty();
    if (empty) data.remove(new Key(key));
  }

  void setString(byte[] key, byte[] value, boolean keepTtl) {
    Key k = new Key(key);
    Entry old = keepTtl ? entry(k) : null;
    Entry e = new Entry(value);
    if (old != null) e.expireAt = old.expireAt;
    data.put(k, e);
  }

  static String typeName(Object v) {
    if (v instanceof byte[]) return "string";
    if (v instanceof LinkedHashMap) return "hash";
    if (v instanceof ArrayList) return "list";
    if (v instanceof LinkedHashSet) return "set";
    return "zset";
  }

  static List<byte[]> keysOf(Collection<Key> ks) {
    List<byte[]> l = new ArrayList<>(ks.size());
    for (Key k : ks) l.add(k.b);
    return l;
  }
}
