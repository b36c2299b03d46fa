package io.dyno.jedis.internal;

import io.dyno.core.DynoException;
import io.dyno.core.exec.CallOptions;
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

  @Override
  public <T> T executeCommand(CommandObject<T> commandObject) {
    Plan plan = core.plan(commandObject.getArguments());
    Object raw = core.run(plan, options);
    if (raw instanceof JedisDataException e) {
      throw e;
    }
    T result;
    try {
      result = commandObject.getBuilder().build(raw);
    } catch (ClassCastException | IndexOutOfBoundsException | NullPointerException | IllegalArgumentException e) {
      // Jedis's builders cast the raw reply: a reply of the wrong shape must not surface as a cast failure.
      throw new DynoException(plan.spec.name() + ": the reply is not what " + plan.spec.name() + " returns but "
          + Plan.describeReply(raw), e);
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
