package io.dyno.testsupport;

import java.util.List;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Hands tests a running {@link RedisServer} as a parameter and closes it when the scope that asked
 * for it ends: a test method's parameter lives for that test, a {@code @BeforeAll} method's or a
 * constructor's (per-class lifecycle) for the class.
 *
 * <pre>{@code
 * @ExtendWith(RedisServerExtension.class)
 * class MyTest {
 *   @Test void answers(RedisServer redis) { ... redis.port() ... }
 * }
 *
 * // with options:
 * @RegisterExtension static final RedisServerExtension REDIS = RedisServerExtension.withArgs("--requirepass", "s3cret");
 * }</pre>
 */
public final class RedisServerExtension implements ParameterResolver {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(RedisServerExtension.class);

  private final List<String> args;

  /** Plain servers with Dyno's defaults (for {@code @ExtendWith}). */
  public RedisServerExtension() {
    this(List.of());
  }

  private RedisServerExtension(List<String> args) {
    this.args = args;
  }

  /** Servers started with these more redis-server options. */
  public static RedisServerExtension withArgs(String... args) {
    return new RedisServerExtension(List.of(args));
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == RedisServer.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    RedisServer server = RedisServer.builder().args(args.toArray(String[]::new)).start();
    // The store closes what it holds (AutoCloseable) when this context ends.
    context.getStore(NAMESPACE).put(server, server);
    return server;
  }
}
