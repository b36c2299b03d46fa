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

  /**
   * Runs {@code op} on the owners of {@code key} (local rack first), retrying and failing over as
   * the options and the configuration allow. Blocks the calling thread until the call ends.
   *
   * @param command the command's name, for metrics, events and error messages (e.g. {@code "GET"})
   * @param key the key the command is routed by (hash tag applied)
   * @param idempotent whether the command may run again after a failure whose outcome is unknown
   * @param options this call's consistency, deadline, retries and hedging
   * @param op the work of one attempt on a borrowed connection; may run several times
   * @param <R> the result's type
   * @return what the successful attempt's {@code op} returned
   * @throws io.dyno.core.DynoException when no attempt succeeded (e.g.
   *     {@code DynoConnectionException}, {@code PoolTimeoutException},
   *     {@code NoAvailableHostsException}, {@code DeadlineExceededException})
   */
  <R> R execute(
      String command, byte[] key, boolean idempotent, CallOptions options, Operation<C, R> op);

  /**
   * As {@link #execute(String, byte[], boolean, CallOptions, Operation)}, the key hashed as UTF-8.
   *
   * @param command the command's name, for metrics, events and error messages (e.g. {@code "GET"})
   * @param key the key the command is routed by (hash tag applied)
   * @param idempotent whether the command may run again after a failure whose outcome is unknown
   * @param options this call's consistency, deadline, retries and hedging
   * @param op the work of one attempt on a borrowed connection; may run several times
   * @param <R> the result's type
   * @return what the successful attempt's {@code op} returned
   */
  <R> R execute(
      String command, String key, boolean idempotent, CallOptions options, Operation<C, R> op);

  /**
   * Runs {@code op} on the given candidates in order (e.g. one token range's replicas, for scan or
   * for a per-node group of a multi-key command or pipeline), with the same retry/failover rules.
   *
   * @param command the command's name, for metrics, events and error messages (e.g. {@code "GET"})
   * @param candidates the nodes that may serve it, in preference order (from {@link #route}); not empty
   * @param idempotent whether the command may run again after a failure whose outcome is unknown
   * @param options this call's consistency, deadline, retries and hedging
   * @param op the work of one attempt on a borrowed connection; may run several times
   * @param <R> the result's type
   * @return what the successful attempt's {@code op} returned
   */
  <R> R executeOn(
      String command,
      List<Host> candidates,
      boolean idempotent,
      CallOptions options,
      Operation<C, R> op);

  /**
   * As {@link #executeOn(String, List, boolean, CallOptions, Operation)}, naming the key (a
   * {@code String} or {@code byte[]}) the candidates were routed by, so that the engine's call
   * listeners ({@link CallListener}) can say which key a call was for. By
   * default the key is dropped.
   *
   * @param command the command's name, for metrics, events and error messages (e.g. {@code "GET"})
   * @param key the key the candidates were routed by ({@code String} or {@code byte[]}), or null
   * @param candidates the nodes that may serve it, in preference order; not empty
   * @param idempotent whether the command may run again after a failure whose outcome is unknown
   * @param options this call's consistency, deadline, retries and hedging
   * @param op the work of one attempt on a borrowed connection; may run several times
   * @param <R> the result's type
   * @return what the successful attempt's {@code op} returned
   */
  default <R> R executeOn(
      String command,
      Object key,
      List<Host> candidates,
      boolean idempotent,
      CallOptions options,
      Operation<C, R> op) {
    return executeOn(command, candidates, idempotent, options, op);
  }

  /**
   * As {@link #executeOn(String, Object, List, boolean, CallOptions, Operation)}, saying whether the
   * command only reads: a read may then be hedged as the options and the configuration say (see
   * {@link io.dyno.core.config.HedgePolicy}). A hedged read runs its attempts on the engine's threads
   * while the caller waits for the first answer; an unhedged call runs on the caller's thread. By
   * default the flag is dropped (never hedged).
   *
   * @param command the command's name, for metrics, events and error messages (e.g. {@code "GET"})
   * @param key the key the candidates were routed by ({@code String} or {@code byte[]}), or null
   * @param candidates the nodes that may serve it, in preference order; not empty
   * @param idempotent whether the command may run again after a failure whose outcome is unknown
   * @param read whether the command only reads (and so may be hedged)
   * @param options this call's consistency, deadline, retries and hedging
   * @param op the work of one attempt on a borrowed connection; may run several times, and at once
   *     on two connections when hedged
   * @param <R> the result's type
   * @return what the successful attempt's {@code op} returned (the first to answer, when hedged)
   */
  default <R> R executeOn(
      String command,
      Object key,
      List<Host> candidates,
      boolean idempotent,
      boolean read,
      CallOptions options,
      Operation<C, R> op) {
    return executeOn(command, key, candidates, idempotent, options, op);
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
   *
   * @param command the command's name, for metrics, events and error messages (e.g. {@code "GET"})
   * @param candidates the nodes that may serve it, in preference order; not empty
   * @param idempotent whether the command may run again after a failure whose outcome is unknown
   * @param read whether the command only reads (and so may be hedged)
   * @param options this call's consistency, deadline, retries and hedging
   * @param op the work of one attempt: sends and returns the reply's future
   * @param <R> the result's type
   * @return a future completed with the call's result or its failure
   */
  <R> CompletableFuture<R> executeAsync(
      String command,
      List<Host> candidates,
      boolean idempotent,
      boolean read,
      CallOptions options,
      AsyncOperation<C, R> op);

  /**
   * As {@link #executeAsync(String, List, boolean, boolean, CallOptions, AsyncOperation)}, naming the
   * key the candidates were routed by (see {@link #executeOn(String, Object, List, boolean,
   * CallOptions, Operation)}). By default the key is dropped.
   *
   * @param command the command's name, for metrics, events and error messages (e.g. {@code "GET"})
   * @param key the key the candidates were routed by ({@code String} or {@code byte[]}), or null
   * @param candidates the nodes that may serve it, in preference order; not empty
   * @param idempotent whether the command may run again after a failure whose outcome is unknown
   * @param read whether the command only reads (and so may be hedged)
   * @param options this call's consistency, deadline, retries and hedging
   * @param op the work of one attempt: sends and returns the reply's future
   * @param <R> the result's type
   * @return a future completed with the call's result or its failure
   */
  default <R> CompletableFuture<R> executeAsync(
      String command,
      Object key,
      List<Host> candidates,
      boolean idempotent,
      boolean read,
      CallOptions options,
      AsyncOperation<C, R> op) {
    return executeAsync(command, candidates, idempotent, read, options, op);
  }

  /**
   * Runs several parts, each on its own candidates, on the caller's thread with their network round
   * trips overlapped: every part is sent before any part's replies are read. Each part keeps the
   * rules of {@link #executeOn} (borrow, consistency, retry/failover, metrics); the options'
   * deadline is for the whole scatter. On return every part holds its result or its failure.
   *
   * @param parts the parts, one per node group; each is run once by this call
   * @param options consistency, deadline and retries for every part (the deadline covers them all)
   */
  void scatter(List<? extends ScatterPart<C, ?>> parts, CallOptions options);

  /**
   * The candidates for a request on {@code key}, in preference order (hash tag and load-balancing
   * applied).
   *
   * @param key the key, as the server sees it
   * @return the nodes, the local rack's owner first; an unmodifiable list, never empty
   * @throws io.dyno.core.NoAvailableHostsException when no node is known yet, or none that is up owns
   *     the key
   */
  List<Host> route(byte[] key);

  /**
   * As {@link #route(byte[])}, the key hashed as UTF-8.
   *
   * @param key the key
   * @return the nodes in preference order; an unmodifiable list, never empty
   * @throws io.dyno.core.NoAvailableHostsException as {@link #route(byte[])}
   */
  List<Host> route(String key);

  /**
   * {@return the candidates for a request without a key} Rotated over the local rack's nodes, then the
   * others, so that successive calls spread over the nodes.
   */
  List<Host> routeKeyless();

  /** {@return the current topology snapshot} Immutable; a later call may return a newer one. */
  Topology topology();

  /**
   * Whether {@code host} takes traffic now: its host source reports it UP and it is not out of
   * rotation after repeated failures (it comes back when a health probe answers). Read-only.
   *
   * @param host a node of the topology
   * @return true when calls may be sent to it now
   */
  default boolean isNodeUp(Host host) {
    return host.isUp();
  }

  /** Closes pools and background tasks. Idempotent. */
  @Override
  void close();
}
