package io.dyno.recipes.counter;

import java.util.Objects;
import redis.clients.jedis.UnifiedJedis;

/** A plain counter on one key ({@code INCRBY}/{@code GET}): simplest, but every increment hits one node. */
public final class KeyCounter implements Counter {
  private final UnifiedJedis client;
  private final String key;

  public KeyCounter(UnifiedJedis client, String key) {
    this.client = Objects.requireNonNull(client, "client");
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("counter key must not be empty");
    }
    this.key = key;
  }

  @Override
  public void incrementBy(long delta) {
    client.incrBy(key, delta);
  }

  @Override
  public long get() {
    String v = client.get(key);
    return v == null ? 0 : Long.parseLong(v);
  }

  @Override
  public String toString() {
    return "KeyCounter{" + key + "}";
  }
}
