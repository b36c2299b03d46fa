package io.dyno.jedis.internal.mux;

import io.dyno.core.internal.KnownCommands;
import java.util.EnumSet;
import java.util.Set;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.commands.ProtocolCommand;

/**
 * Commands no shared connection may carry: they would hold it or change its state for everyone on
 * it. Which ones is the command table's {@code own-connection} fact ({@link KnownCommands}), turned
 * once into a set of Jedis's commands so that the check per command is a bit test.
 */
final class MuxRefusals {
  private static final Set<Protocol.Command> REFUSED = ownConnection();

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

  private static Set<Protocol.Command> ownConnection() {
    Set<Protocol.Command> refused = EnumSet.noneOf(Protocol.Command.class);
    for (Protocol.Command c : Protocol.Command.values()) {
      KnownCommands.Entry e = KnownCommands.entry(c.name());
      if (e != null && e.ownConnection()) {
        refused.add(c);
      }
    }
    return refused;
  }
}
