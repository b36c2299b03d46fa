package io.dyno.companion.internal;

import io.netty.handler.codec.redis.RedisMessage;
import java.util.function.Consumer;

/** The in-memory datastore: one {@link MemoryStore} behind a lock, answering synchronously. */
final class MemoryStorage implements Storage {
  private final MemoryStore store = new MemoryStore(System::currentTimeMillis);

  @Override
  public void execute(byte[][] args, LoopState loop, Consumer<RedisMessage> callback) {
    RedisMessage reply;
    synchronized (store) {
      reply = store.execute(args);
    }
    callback.accept(reply);
  }

  @Override
  public void flushAll() {
    synchronized (store) {
      store.flushAll();
    }
  }

  @Override
  public void disconnect() {
    // nothing to drop: the node's backendDown flag makes every local command fail
  }
}
