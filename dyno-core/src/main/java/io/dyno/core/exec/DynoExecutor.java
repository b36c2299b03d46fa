package io.dyno.core.exec;

import io.dyno.core.Host;
import io.dyno.core.events.CallListener;
import io.dyno.core.routing.Topology;
import io.dyno.core.spi.NodeConnection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The request path of dyno-core, as one chain: route → choose replica → borrow → set consistency →
 * run → classify → retry / fail over → record. Drivers (dyno-jedis) call this for every command.
 *
 * <p>Routing is decided once, by the caller: {@link #route}/{@link #routeKeyless} give a request's
 * candidates (the client's load-balancing applied), which the caller keeps in its plan and passes
 * to {@link #executeOn} or a {@link ScatterPart}. {@link #execute} does both steps for one key.
 *
 * <p>{@code command} names the command in metrics and error messages (e.g. {@code "GET"}).
 * {@code idempotent} says whether the command may be retried after a failure whose outcome is
 * unknown; non-idempotent commands are only retried when the options allow it, or when the
 * failure proves the command never reached the server (e.g. the borrow or connect failed).
 */
public interface DynoExecutor<C extends NodeConnection> extends AutoCloseable {

  /** Runs {@code op} on the owners of {@code key} (local rack first). */
  <R> R execute(String command, byte[] key, boolean idempotent, CallOptions options, Operation<C, R> op);

  /** Runs {@code op} on the owners of {@code key} (local rack first); the key is hashed as UTF-8. */
  <R> R execute(String command, String key, boolean idempotent, CallOptions options, Operation<C, R> op);

  /**
   * Runs {@code op} on the given candidates in order (e.g. one token range's replicas, for scan or
   * for a per-node group of a multi-key command or pipeline), with the same retry/failover rules.
   */
  <R> R executeOn(String command, List<Host> candidates, boolean idempotent, CallOptions options, Operation<C, R> op);

  /**
   * As {@link #executeOn(String, List, boolean, CallOptions, Operation)}, naming the key (a
   * {@code String} or {@code byte[]}) the candidates were routed by, so that the engine's call
   * listeners ({@link CallListener}) can say which key a call was for. By
   * default the key is dropped.
   */
  default <R> R executeOn(String command, Object key, List<Host> candidates, boolean idempotent,
      CallOptions options, Operation<C, R> op) {
    return executeOn(command, candidates, idempotent, options, op);
  }

  /**
   * As {@link #executeOn}, without blocking the caller while the reply is on its way: the attempt is
   * sent (the first one on the caller's thread, unless that is one of the transport's I/O threads)
   * and the connection goes back at once; the reply, a retry, a failover or a hedged read completes
   * the future. The same rules as {@link #executeOn} (deadline, idempotency, failover, health,
   * metrics); a failure completes the future with the exception {@code executeOn} would throw.
   * {@code read}: the command only reads, so it may be hedged (see
   * {@link io.dyno.core.config.HedgePolicy}). Callbacks on the future run on the transport's I/O
   * thread: they must not block (hand blocking work to an executor).
   */
  <R> CompletableFuture<R> executeAsync(String command, List<Host> candidates,
      boolean idempotent, boolean read, CallOptions options, AsyncOperation<C, R> op);

  /**
   * As {@link #executeAsync(String, List, boolean, boolean, CallOptions, AsyncOperation)}, naming the
   * key the candidates were routed by (see {@link #executeOn(String, Object, List, boolean,
   * CallOptions, Operation)}). By default the key is dropped.
   */
  default <R> CompletableFuture<R> executeAsync(String command, Object key, List<Host> candidates,
      boolean idempotent, boolean read, CallOptions options, AsyncOperation<C, R> op) {
    return executeAsync(command, candidates, idempotent, read, options, op);
  }

  /**
   * Runs several parts, each on its own candidates, on the caller's thread with their network round
   * trips overlapped: every part is sent before any part's replies are read. Each part keeps the
   * rules of {@link #executeOn} (borrow, consistency, retry/failover, metrics); the options'
   * deadline is for the whole scatter. On return every part holds its result or its failure.
   */
  void scatter(List<? extends ScatterPart<C, ?>> parts, CallOptions options);

  /** The candidates for a request on {@code key}, in preference order (hash tag and load-balancing applied). */
  List<Host> route(byte[] key);

  /** As {@link #route(byte[])}, the key hashed as UTF-8. */
  List<Host> route(String key);

  /** The candidates for a request without a key: rotated over the local rack's nodes, then the others. */
  List<Host> routeKeyless();

  /** The current topology snapshot. */
  Topology topology();

  /** Closes pools and background tasks. Idempotent. */
  @Override
  void close();
}
