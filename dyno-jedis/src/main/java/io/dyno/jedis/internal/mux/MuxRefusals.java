package io.dyno.jedis.internal.mux;

import java.util.EnumSet;
import java.util.Set;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.commands.ProtocolCommand;

/** Commands no shared connection may carry: they would hold it or change its state for everyone on it. */
final class MuxRefusals {
  private static final Set<Protocol.Command> REFUSED = EnumSet.of(
      Protocol.Command.MULTI,
      Protocol.Command.EXEC,
      Protocol.Command.DISCARD,
      Protocol.Command.WATCH,
      Protocol.Command.UNWATCH,
      Protocol.Command.SELECT,
      Protocol.Command.AUTH,
      Protocol.Command.SUBSCRIBE,
      Protocol.Command.PSUBSCRIBE,
      Protocol.Command.UNSUBSCRIBE,
      Protocol.Command.PUNSUBSCRIBE,
      Protocol.Command.MONITOR,
      Protocol.Command.BLPOP,
      Protocol.Command.BRPOP,
      Protocol.Command.BRPOPLPUSH,
      Protocol.Command.BLMOVE,
      Protocol.Command.BZPOPMIN,
      Protocol.Command.BZPOPMAX,
      Protocol.Command.WAIT,
      Protocol.Command.CLIENT);

  private MuxRefusals() {}

  /** Throws, naming the command and {@code node}, when {@code cmd} may not go over a shared connection. */
  static void check(CommandArguments cmd, String node) {
    ProtocolCommand c = cmd.getCommand();
    if (cmd.isBlocking()
        || (c instanceof Protocol.Command pc
            ? REFUSED.contains(pc)
            : DynomiteWire.isDynoConfig(c))) {
      throw new IllegalArgumentException(
          RespEncoder.name(cmd) + " holds or changes per-connection state and cannot"
              + " go over the shared connection to " + node);
    }
  }
}
