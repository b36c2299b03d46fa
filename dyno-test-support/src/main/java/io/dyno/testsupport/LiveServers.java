package io.dyno.testsupport;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Every started server until it is closed, so a JVM exit never leaves a redis-server behind. */
final class LiveServers {
  private static final Set<RedisServer> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Thread hook =
        new Thread(() -> LIVE.forEach(RedisServer::killOnJvmExit), "dyno-redis-server-cleanup");
    hook.setDaemon(true);
    Runtime.getRuntime().addShutdownHook(hook);
  }

  private LiveServers() {}

  static void remember(RedisServer server) {
    LIVE.add(server);
  }

  static void forget(RedisServer server) {
    LIVE.remove(server);
  }
}
