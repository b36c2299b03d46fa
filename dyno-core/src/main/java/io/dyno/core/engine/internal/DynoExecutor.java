package io.dyno.core.engine.internal;

import io.dyno.core.Host;
import io.dyno.core.exec.CallOptions;
import io.dyno.core.routing.Topology;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The request path of dyno-core, as one chain: route → choose replica → borrow → set consistency →
 * run → classify → retry / fail over → record. Drivers (dyno-jedis) call this for every command.
 *
 * <p>Every call is described once, by a {@link CallSpec} ({@link #call}): its command, key,
 * candidates, kind, idempotency, consistency and hedging. Routing is decided once, by the caller:
 * {@link #route}/{@link #routeKeyless} give a request's candidates (the client's load-balancing
 * applied), which the caller keeps in its plan and puts in the spec; a spec without candidates is
 * routed by its key. A command that is not idempotent is only re-run after a failure of unknown
 * outcome when the options allow it, or when the failure proves the command never reached the
 * server (e.g. the borrow or connect failed).
 */
public interface DynoExecutor<C extends NodeConnection> extends AutoCloseable {

  /**
   * Starts the spec of one call of {@code command} ({@link CallSpec}): its kind and idempotency from
   * the command table, its options resolved against this engine's configuration in force.
   *
   * @param command the command's name, upper case (e.g. {@code "GET"})
   * @return a new builder; finish it with {@link CallSpec.Builder#build()}
   */
  CallSpec.Builder call(String command);

  /**
   * Runs {@code op} for {@code call}: on its candidates in order, or, when it has none, on the
   * owners of its key (local rack first), retrying and failing over as its options and the
   * configuration allow. Blocks the calling thread until the call ends. A hedged read
   * ({@link CallSpec#hedgeOn}) runs its attempts on the engine's threads while the caller waits for
   * the first answer; any other call runs on the caller's thread.
   *
   * @param call the call: command, key or candidates, kind, idempotency, consistency, hedging
   * @param op the work of one attempt on a borrowed connection; may run several times, and at once
   *     on two connections when hedged
   * @param <R> the result's type
   * @return what the successful attempt's {@code op} returned (the first to answer, when hedged)
   * @throws io.dyno.core.DynoException when no attempt succeeded (e.g.
   *     {@code DynoConnectionException}, {@code PoolTimeoutException},
   *     {@code NoAvailableHostsException}, {@code DeadlineExceededException})
   */
  <R> R execute(CallSpec call, Operation<C, R> op);

  /**
   * As {@link #execute}, without blocking the caller while the reply is on its way: the attempt is
   * sent (the first one on the caller's thread, unless that is one of the transport's I/O threads)
   * and the connection goes back at once; the reply, a retry, a failover or a hedged read completes
   * the future. The same rules as {@link #execute} (deadline, idempotency, failover, health,
   * metrics); a failure completes the future with the exception {@code execute} would throw.
   * Callbacks on the future run on the transport's I/O thread: they must not block (hand blocking
   * work to an executor).
   *
   * @param call the call: command, key or candidates, kind, idempotency, consistency, hedging
   * @param op the work of one attempt: sends and returns the reply's future
   * @param <R> the result's type
   * @return a future completed with the call's result or its failure
   */
  <R> CompletableFuture<R> executeAsync(CallSpec call, AsyncOperation<C, R> op);

  /**
   * Runs several parts, each on its own candidates, on the caller's thread with their network round
   * trips overlapped: every part is sent before any part's replies are read. Each part keeps the
   * rules of {@link #execute} (borrow, consistency, retry/failover, metrics); the options'
   * deadline is for the whole scatter. On return every part holds its result or its failure.
   *
   * @param parts the parts, one per node group (each with its {@link CallSpec}); each is run once
   * @param options the deadline of the whole scatter (each part's spec carries the rest)
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
