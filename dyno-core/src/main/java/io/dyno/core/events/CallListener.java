package io.dyno.core.events;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.Host;
import java.util.List;

/**
 * Hears what one call through the engine did: which nodes it could use, every attempt (on which
 * node, why, how it ended) and how the call ended. The answer to "why did this call go to rack2?"
 * in one place, where {@code dyno.op} meters keep only the last rack.
 *
 * <p>One listener per call, made by the {@link Factory} given to the engine
 * ({@code DynoEngine.builder(...).listener(...)}, {@code DynoJedisClient.builder().eventListener(...)}),
 * so that it may keep the call's state in its fields. Every method does nothing by default.
 * {@link LoggingCallListener} writes one line per call.
 *
 * <p>Order: {@code callStart}, then {@code consistency} (if any), then per attempt
 * {@code attemptStart} before its {@code attemptEnd}, then {@code callEnd}, before the caller sees
 * the result. An asynchronous call continues on other
 * threads (the transport's, the engine's I/O executor), so one call's events may come from several,
 * each after the one before it; except a hedged read: its two attempts are in flight together, may
 * end at the same time on two threads, and the one that lost may end after {@code callEnd}
 * ({@link AttemptOutcome#DISCARDED} if it answered). A listener keeping state synchronizes. The
 * methods run on the request path, I/O threads included: they must be quick and never block. An
 * exception thrown by one is logged and ignored.
 *
 * <p>A call refused before it starts (the engine closed, no candidates) has no events. Each part of
 * a command split over several nodes (a multi-key command, a pipeline) is a call of its own.
 */
public interface CallListener {

  /** Hears nothing. A factory may return it for calls it is not interested in: they then cost nothing more. */
  CallListener NONE = new CallListener() {};

  /**
   * The call starts.
   *
   * @param command the command's name, as in metrics (e.g. {@code GET})
   * @param key the key the call was routed by, a {@code String} or a {@code byte[]} (which may be
   *     binary); for a part of a multi-key command its first key; null for a keyless call, or when
   *     the driver did not name it
   * @param candidates the nodes the call may use, in preference order (the local rack's owner first)
   */
  default void callStart(String command, Object key, List<Host> candidates) {}

  /**
   * The Dynomite consistency level the call asks for (its {@code CallOptions} or the client's
   * {@code defaultConsistency}), told right after {@link #callStart}, on the same thread. Not told
   * for a call that asks for none (the server's default applies), nor in datastore mode (no Dynomite).
   *
   * @param level the level every attempt of the call runs at
   */
  default void consistency(ConsistencyLevel level) {}

  /**
   * An attempt starts on {@code node}: its connection is about to be borrowed.
   *
   * @param attempt the attempt's number in this call, from 1
   * @param node the node the attempt goes to
   * @param reason why the attempt goes there (see {@link AttemptReason})
   */
  default void attemptStart(int attempt, Host node, AttemptReason reason) {}

  /**
   * An attempt ended.
   *
   * @param attempt the attempt's number in this call, as told to {@link #attemptStart}
   * @param node the node the attempt went to
   * @param outcome how it ended (see {@link AttemptOutcome})
   * @param failure what failed it (the driver's exception, or the engine's for a borrow that
   *     failed); null on {@link AttemptOutcome#SUCCESS} and {@link AttemptOutcome#DISCARDED}, and
   *     for an attempt not sent because the call's deadline passed or the call had ended
   */
  default void attemptEnd(int attempt, Host node, AttemptOutcome outcome, Throwable failure) {}

  /**
   * The call ended.
   *
   * @param failure what the caller gets thrown (or its future fails with); null on success
   * @param attempts how many attempts started (those never sent included)
   * @param elapsedNanos from the call's start to its end, on the engine's {@code Ticker}
   *     (backoff and every attempt included): the time {@code dyno.op.latency} records
   */
  default void callEnd(Throwable failure, int attempts, long elapsedNanos) {}

  /** Makes the listener of each call. */
  @FunctionalInterface
  interface Factory {
    /**
     * The listener of a call about to start; {@link CallListener#NONE} (or null) to hear nothing of
     * it. Called on the caller's thread; a factory that keeps no per-call state may return one
     * shared (thread-safe) listener every time.
     *
     * @return the call's listener, or {@link CallListener#NONE} or null for none
     */
    CallListener create();
  }
}
