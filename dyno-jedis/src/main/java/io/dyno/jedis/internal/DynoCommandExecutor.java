package io.dyno.jedis.internal;

import io.dyno.core.exec.CallOptions;
import java.util.concurrent.CompletableFuture;
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
    Object raw = core.runForWaitingCaller(plan, commandObject.getArguments(), options);
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

  @Override
  public void close() {
    if (ownsCore) {
      core.close();
    }
  }
}
