package io.dyno.jedis.internal;

import java.util.Map;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ConnectionProvider;

/**
 * The connection provider {@code DynoJedisClient} hands to {@link UnifiedJedis}: it refuses every
 * request for a connection, naming the Jedis method that asked. Dyno routes each command itself
 * (through its executor, over its own per-node pools), so Jedis's provider is never used to run a
 * command; the few Jedis methods that take a connection of their own (iterators over one node,
 * pub/sub, a provider's connection map) have no node to take it from, and must fail with a clear
 * error rather than a {@code NullPointerException} from inside Jedis.
 */
public final class RefusingConnectionProvider implements ConnectionProvider {
  static final String WHY =
      "it takes a connection of its own from Jedis's connection provider, and Dyno has none"
          + " (Dyno routes each command itself, over its own per-node pools)";

  private final PublicExceptions refusals;

  public RefusingConnectionProvider(PublicExceptions refusals) {
    this.refusals = refusals;
  }

  @Override
  public Connection getConnection() {
    throw refusal(null);
  }

  @Override
  public Connection getConnection(CommandArguments args) {
    throw refusal(args == null ? null : CommandTable.name(args));
  }

  @Override
  public Map<?, ?> getConnectionMap() {
    throw refusal(null);
  }

  @Override
  public Map<?, ?> getPrimaryNodesConnectionMap() {
    throw refusal(null);
  }

  @Override
  public void close() {
    // nothing is held
  }

  /** Names the command when Jedis gave it, else the outermost {@code UnifiedJedis} method on the stack. */
  private RuntimeException refusal(String command) {
    String what = command != null ? command : callingJedisMethod();
    return refusals.unsupported(what, WHY);
  }

  private static String callingJedisMethod() {
    return StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
        .walk(frames -> frames
            .filter(f -> UnifiedJedis.class.isAssignableFrom(f.getDeclaringClass()))
            .reduce((inner, outer) -> outer) // the one the application called
            .map(f -> f.getDeclaringClass().getSimpleName() + "." + f.getMethodName())
            .orElse("a dedicated Jedis connection"));
  }
}
