package io.dyno.jedis.internal;

import io.dyno.core.DeadlineExceededException;
import io.dyno.core.DynoConnectionException;
import io.dyno.core.DynoException;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.PoolTimeoutException;
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
 *   <tr><td>{@link DeadlineExceededException}</td><td>{@code DynoDeadlineExceededException}</td><td>JedisConnectionException</td></tr>
 *   <tr><td>{@link NoAvailableHostsException}</td><td>{@code DynoNoAvailableHostsException}</td><td>JedisConnectionException</td></tr>
 *   <tr><td>{@link DynoConnectionException}</td><td>{@code DynoNodeFailureException}</td><td>JedisConnectionException</td></tr>
 *   <tr><td>{@link PoolTimeoutException}</td><td>{@code DynoPoolExhaustedException}</td><td>JedisException</td></tr>
 *   <tr><td>{@link UnreadableReplyException}</td><td>{@code DynoDataException}</td><td>JedisDataException</td></tr>
 *   <tr><td>any other {@link DynoException}</td><td>{@code DynoClientException}</td><td>JedisException</td></tr>
 * </table>
 *
 * A write the node's own Redis refused ({@code Storage: Datastore refused connection}, OOM,
 * MISCONF, READONLY) is a replica failure to dyno-core, not a data error: through Dynomite it was
 * already forwarded to the other racks, so it arrives as a {@code DynoNodeFailureException} whose
 * message says it may have been applied there (and an idempotent one first fails over).
 *
 * <p>The message is the core exception's and the core exception is the cause. A core exception that
 * only wraps another ("GET: ...") is judged by the first known kind down its causes. Jedis's own
 * exceptions (error replies, the client's refusals, the multiplexed transport's connection errors)
 * pass unchanged, and so do programming errors (a null key's {@code IllegalArgumentException}).
 */
public final class JedisFailures {
  private final PublicExceptions make;

  /** @param make makes the public exceptions this translation chooses */
  public JedisFailures(PublicExceptions make) {
    this.make = make;
  }

  /** {@return what a public call throws for {@code failure}} A future's wrapping is taken off first. */
  public RuntimeException translate(Throwable failure) {
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
  public JedisException translate(String message, Throwable cause) {
    // A driver's own exception under added context keeps the context: it is wrapped, then judged.
    DynoException d =
        cause instanceof DynoException dyno ? dyno : new DynoException(message, cause);
    for (Throwable t = d; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof DeadlineExceededException) {
        return make.deadlineExceeded(message, d);
      }
      if (t instanceof PoolTimeoutException) {
        return make.poolExhausted(message, d);
      }
      if (t instanceof NoAvailableHostsException) {
        return make.noAvailableHosts(message, d);
      }
      if (t instanceof DynoConnectionException || t instanceof JedisConnectionException) {
        return make.nodeFailure(message, d);
      }
      if (t instanceof UnreadableReplyException || t instanceof JedisDataException) {
        return make.data(message, d);
      }
    }
    return make.client(message, d);
  }

  /** {@return a future that completes as {@code future} does, its failure {@link #translate translated}} */
  public <T> CompletableFuture<T> translating(CompletableFuture<T> future) {
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

  private Throwable translateWithoutThrowing(Throwable failure) {
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
