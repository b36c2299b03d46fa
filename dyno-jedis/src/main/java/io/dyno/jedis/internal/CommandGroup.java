package io.dyno.jedis.internal;

import io.dyno.core.engine.internal.SplitOperation;
import java.util.List;
import java.util.function.UnaryOperator;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Commands for one node, sent together and read together: one part of a split command or one
 * node's share of a pipeline, run by the executor's scatter.
 *
 * @param errorRepliesThrow true for a command outside a pipeline: its error reply is thrown inside
 *     the run, as a plain call's is, so a Dynomite replica error fails over and a data error reaches
 *     the caller. In a pipeline, error replies stay per command.
 * @param replyView turns the replies read into those the caller's command would have had (see
 *     {@link Plan.Part#asOriginal})
 */
record CommandGroup(
    List<CommandArguments> commands,
    boolean errorRepliesThrow,
    UnaryOperator<List<Object>> replyView)
    implements SplitOperation<JedisNodeConnection, List<Object>> {

  /** A command outside a pipeline as its plan part sends it: its error reply is thrown, its replies as the original's. */
  static CommandGroup of(Plan.Part part) {
    return new CommandGroup(part.commands(), true, part::asOriginal);
  }

  /** Both halves at once, for a part that runs alone. */
  List<Object> run(JedisNodeConnection c) {
    send(c);
    return receive(c);
  }

  @Override
  public void send(JedisNodeConnection c) {
    c.send(commands);
  }

  @Override
  public List<Object> receive(JedisNodeConnection c) {
    return settle(c.receive(commands.size()));
  }

  /** The replies read, as the caller's command would have had them; an error reply thrown when it must be. */
  List<Object> settle(List<Object> read) {
    List<Object> replies = replyView.apply(read);
    if (errorRepliesThrow) {
      for (Object r : replies) {
        if (r instanceof JedisDataException e) {
          throw e; // all replies were read: the connection stays in step
        }
      }
    }
    return replies;
  }
}
