package io.dyno.companion.internal;

import io.netty.handler.codec.redis.RedisMessage;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * A single-threaded Redis-like keyspace answering like Redis 7: this class only dispatches a command to
 * the family that owns it (strings, keys, hashes, lists, sets, sorted sets, server) and turns a
 * {@link StoreArgs.Fail} into its error reply. Not thread-safe: {@link MemoryStorage} serialises access.
 */
final class MemoryStore {
  private final Keyspace keyspace;
  private final List<CommandFamily> families;

  MemoryStore(LongSupplier clock) {
    this.keyspace = new Keyspace(clock);
    this.families = List.of(
        new StringCommands(keyspace),
        new KeyCommands(keyspace),
        new HashCommands(keyspace),
        new ListCommands(keyspace),
        new SetCommands(keyspace),
        new SortedSetCommands(keyspace),
        new ServerCommands(keyspace));
  }

  void flushAll() {
    keyspace.data.clear();
  }

  RedisMessage execute(byte[][] a) {
    String cmd = Resp.upper(a[0]);
    try {
      for (CommandFamily f : families) {
        RedisMessage reply = f.run(cmd, a);
        if (reply != null) return reply;
      }
      return Resp.err("ERR unknown command '" + Resp.str(a[0]) + "', with args beginning with: ");
    } catch (StoreArgs.Fail f) {
      return Resp.err(f.error);
    }
  }
}
