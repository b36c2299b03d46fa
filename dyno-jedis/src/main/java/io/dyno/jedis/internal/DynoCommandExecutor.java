package io.dyno.jedis.internal;

import io.dyno.core.DynoException;
import io.dyno.core.exec.CallOptions;
import java.util.Collections;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.executors.CommandExecutor;

/**
 * The hook into Jedis: every command of {@code UnifiedJedis} arrives here as a {@link CommandObject}
 * with its keys marked. It is classified (refused before any I/O when the server cannot serve it),
 * planned over the topology (one owner, split per owner, any node, every node), run through
 * dyno-core's executor with this view's call options, and its raw reply built by Jedis's own builder.
 */
public final class DynoCommandExecutor implements CommandExecutor {
  private final ClientCore core;
  private final CallOptions options;
  private final boolean ownsCore;

  public DynoCommandExecutor(ClientCore core, CallOptions options, boolean ownsCore) {
    this.core = core;
    this.options = options;
    this.ownsCore = ownsCore;
  }

  public CallOptions options() {
    return options;
  }

  public ClientCore core() {
    return core;
  }

  /** Every blocking command of the client; whatever it throws is a Jedis exception ({@link JedisFailures}). */
  @Override
  public <T> T executeCommand(CommandObject<T> commandObject) {
    try {
      return execute(commandObject);
    } catch (RuntimeException e) {
      throw core.failures().translate(e);
    }
  }

  private <T> T execute(CommandObject<T> commandObject) {
    Plan plan = core.plan(commandObject.getArguments());
    // The asynchronous path, waited for here: a one-part command on the multiplexed transport, and
    // a hedged read on either transport (each part hedged; on pooled sockets the engine runs its
    // attempts on its own threads). A command that blocks its connection (BLPOP ...) takes the
    // engine's blocking path to a socket of its own.
    boolean multiplexed = core.transportThread != null;
    if (!commandObject.getArguments().isBlocking()
        && ((multiplexed && plan.parts.size() == 1)
            || (plan.spec.hedgeable() && core.hedged(options)))) {
      if (multiplexed && core.transportThread.getAsBoolean()) {
        throw new IllegalStateException(
            plan.spec.name() + ": a blocking call on the client's I/O thread (a callback"
                + " of an asynchronous call) would wait for its own reply; use the asynchronous API there (async())");
      }
      if (plan.parts.size() == 1) {
        // Merged and built here, on the caller's thread: no completion stage to allocate per call.
        Object raw = await(plan.spec.name(), core.runOnePartForWaitingCaller(plan, options));
        return build(plan, commandObject, plan.merge(Collections.singletonList(raw)));
      }
      return await(plan.spec.name(), executeAsync(plan, commandObject));
    }
    Object raw = core.run(plan, options);
    return build(plan, commandObject, raw);
  }

  /**
   * The command as an asynchronous call (see {@code DynoJedisAsync}); every failure
   * fails the future, with the exception the blocking call would throw ({@link JedisFailures}).
   */
  public <T> CompletableFuture<T> executeAsync(CommandObject<T> commandObject) {
    try {
      return core.failures().translating(startAsync(commandObject));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(core.failures().translate(e));
    }
  }

  private <T> CompletableFuture<T> startAsync(CommandObject<T> commandObject) {
    Plan plan = core.plan(commandObject.getArguments());
    if (core.transportThread != null && commandObject.getArguments().isBlocking()) {
      return CompletableFuture.failedFuture(core.planner()
          .table()
          .refusals()
          .unsupported(
              plan.spec.name(),
              "it blocks its connection until it is answered, so on the multiplexed transport it runs on a socket of its"
                  + " own as a blocking call (DynoJedisClient), not asynchronously"));
    }
    return executeAsync(plan, commandObject);
  }

  private <T> CompletableFuture<T> executeAsync(Plan plan, CommandObject<T> commandObject) {
    return core.runAsync(plan, options, raw -> build(plan, commandObject, raw));
  }

  /** The caller's result from the merged raw reply: an error reply thrown, the reply built by Jedis, the write mirrored. */
  private <T> T build(Plan plan, CommandObject<T> commandObject, Object raw) {
    if (raw instanceof JedisDataException e) {
      throw e;
    }
    T result;
    try {
      result = commandObject.getBuilder().build(raw);
    } catch (ClassCastException
        | IndexOutOfBoundsException
        | NullPointerException
        | IllegalArgumentException e) {
      // Jedis's builders cast the raw reply: a reply of the wrong shape must not surface as a cast
      // failure.
      throw new UnreadableReplyException(
          plan.spec.name() + ": the reply is not what " + plan.spec.name() + " returns but "
              + Plan.describeReply(raw),
          e);
    }
    core.mirror(plan, commandObject.getArguments());
    return result;
  }

  /**
   * Waits for the call's end, ignoring interrupts as a socket read does (the interrupt status stays
   * set for the caller): a command already sent cannot be called back, so an interrupted wait would
   * report as failed a command that may have run (a counter retrying it would count it twice). The
   * wait always ends: each attempt is bounded by its read timeout, the call by its deadline.
   */
  private static <T> T await(String command, CompletableFuture<T> f) {
    try {
      return f.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new DynoException(command + ": " + cause, cause);
    }
  }

  @Override
  public void close() {
    if (ownsCore) {
      core.close();
    }
  }
}
