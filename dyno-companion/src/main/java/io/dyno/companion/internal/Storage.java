package io.dyno.companion.internal;

import io.netty.handler.codec.redis.RedisMessage;
import java.util.function.Consumer;

/** A node's datastore: the in-memory store or the node's redis-server. */
interface Storage {
  /** Runs one command; the callback runs on the loop of {@code loop}. */
  void execute(byte[][] args, LoopState loop, Consumer<RedisMessage> callback);

  /** Deletes everything (test helper, not reachable from clients). */
  void flushAll();

  /** Drops connections to the datastore (backend down). */
  void disconnect();
}
