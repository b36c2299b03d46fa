package io.dyno.jedis;

import io.dyno.core.DynoException;

/**
 * Marks the Jedis exceptions that carry a failure of Dyno itself (no node, deadline passed, pool
 * exhausted, node failure, unreadable value) rather than one of Jedis or of the server. Each keeps
 * dyno-core's exception, with its details (hosts, attempts, waiters), as its cause.
 *
 * <pre>{@code
 * } catch (JedisException e) {
 *   if (e instanceof DynoFailure f) log.warn("Dyno: {}", f.dynoCause().getMessage());
 * }
 * }</pre>
 */
public interface DynoFailure {
  /** {@return dyno-core's exception behind this one (also {@code getCause()})} */
  DynoException dynoCause();
}
