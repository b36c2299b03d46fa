package io.dyno.companion.internal;

import io.netty.handler.codec.redis.RedisMessage;

/** The in-memory commands of one data type; {@link MemoryStore} asks each family in turn. */
interface CommandFamily {
  /**
   * @param cmd the upper-cased command name
   * @return the reply, or null when {@code cmd} is not one of this family's commands
   * @throws StoreArgs.Fail for a Redis error reply
   */
  RedisMessage run(String cmd, byte[][] a);
}
