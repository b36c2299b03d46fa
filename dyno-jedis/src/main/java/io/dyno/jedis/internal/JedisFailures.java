package io.dyno.jedis.internal;

import io.dyno.core.DeadlineExceededException;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.DynoException;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.PoolTimeoutException;
import io.dyno.jedis.DynoClientException;
import io.dyno.jedis.DynoDataException;
import io.dyno.jedis.DynoDeadlineExceededException;
import io.dyno.jedis.DynoNoAvailableHostsException;
import io.dyno.jedis.DynoNodeFailureException;
import io.dyno.jedis.DynoPoolExhaustedException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The one place where dyno-core's failures become Jedis's: every failure leaving a public call of
 * dyno-jedis (blocking, asynchronous, pipelined, scan) passes through {@link #translate}, so a Jedis
 * user's {@code catch (JedisException e)} catches all of them.
 *
 * <table>
 *   <caption>dyno-core's failure and what the caller gets</caption>
 *   <tr><th>dyno-core</th><th>caller gets</th><th>a</th></tr>
 *   <tr><td>{@link DeadlineExceededException}</td><td>{@link DynoDeadlineExceededException}</td><td>JedisConnectionException</td></tr>
 *   <tr><td>{@link NoAvailableHostsException}</td><td>{@link DynoNoAvailableHostsException}</td><td>JedisConnectionException</td></tr>
 *   <tr><td>{@link DynoConnectionException}</td><td>{@link DynoNodeFailureException}</td><td>JedisConnectionException</td></tr>
 *   <tr><td>{@link PoolTimeoutException}</td><td>{@link DynoPoolExhaustedException}</td><td>JedisException</td></tr>
 *   <tr><td>{@link UnreadableReplyException}</td><td>{@link DynoDataException}</td><td>JedisDataException</td></tr>
 *   <tr><td>any other {@link DynoException}</td><td>{@link DynoClientException}</td><td>JedisException</td></tr>
 * </table>
 *
 * The message is the core exception's and the core exception is the cause. A core exception that
 * only wraps another ("GET: ...") is judged by the first known kind down its causes. Jedis's own
 * exceptions (error replies, the client's refusals, the multiplexed transport's connection errors)
 * pass unchanged, and so do programming errors (a null key's {@code IllegalArgumentException}).
 */
public final class JedisFailures {
  private JedisFailures() {}

  /** {@return what a public call throws for {@code failure}} A future's wrapping is taken off first. */
  public static RuntimeException translate(Throwable failure) {
    Throwable f = unwrap(failure);
    if (f instanceof DynoException d) {
      if (d.getClass() == DynoException.class && d.getCause() instanceof JedisException jedis) {
        return jedis; // a core wrapper around Jedis's own exception: Jedis's is the one to catch
      }
      return translate(d.getMessage(), d);
    }
    if (f instanceof RuntimeException r) {
      return r;
    }
    if (f instanceof Error e) {
      throw e;
    }
    return new JedisException(
        String.valueOf(f.getMessage()), f); // a checked exception: none is expected
  }

  /** As {@link #translate(Throwable)}, with {@code message} (more context) in place of the core exception's. */
  public static JedisException translate(String message, Throwable cause) {
    // A driver's own exception under added context keeps the context: it is wrapped, then judged.
    DynoException d =
        cause instanceof DynoException dyno ? dyno : new DynoException(message, cause);
    for (Throwable t = d; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof DeadlineExceededException) {
        return new DynoDeadlineExceededException(message, d);
      }
      if (t instanceof PoolTimeoutException) {
        return new DynoPoolExhaustedException(message, d);
      }
      if (t instanceof NoAvailableHostsException) {
        return new DynoNoAvailableHostsException(message, d);
      }
      if (t instanceof DynoConnectionException || t instanceof JedisConnectionException) {
        return new DynoNodeFailureException(message, d);
      }
      if (t instanceof UnreadableReplyException || t instanceof JedisDataException) {
        return new DynoDataException(message, d);
      }
    }
    return new DynoClientException(message, d);
  }

  /** {@return a future that completes as {@code future} does, its failure {@link #translate translated}} */
  public static <T> CompletableFuture<T> translating(CompletableFuture<T> future) {
    CompletableFuture<T> out = new CompletableFuture<>();
    future.whenComplete((value, failure) -> {
      if (failure == null) {
        out.complete(value);
      } else {
        out.completeExceptionally(translateWithoutThrowing(failure));
      }
    });
    out.whenComplete((value, failure) -> {
      if (failure instanceof CancellationException) {
        future.cancel(false); // the caller gave up: so may the call
      }
    });
    return out;
  }

  private static Throwable translateWithoutThrowing(Throwable failure) {
    Throwable f = unwrap(failure);
    return f instanceof Error ? f : translate(f);
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
