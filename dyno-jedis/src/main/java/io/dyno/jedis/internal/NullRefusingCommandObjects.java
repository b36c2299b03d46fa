package io.dyno.jedis.internal;

import java.nio.charset.StandardCharsets;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.commands.ProtocolCommand;

/**
 * The one place where a {@code null} key or argument is refused: every command of the client (and
 * of its pipelines) builds its arguments here, before any connection is touched. Without it Jedis
 * fails with a bare {@link NullPointerException} that names no command. Redis has no null value,
 * so there is nothing a null could mean.
 */
public final class NullRefusingCommandObjects extends CommandObjects {
  public NullRefusingCommandObjects(RedisProtocol protocol) {
    super(protocol);
  }

  @Override
  protected CommandArguments commandArguments(ProtocolCommand command) {
    return new Checked(command);
  }

  /** Arguments that refuse null as they are added. */
  static final class Checked extends CommandArguments {
    Checked(ProtocolCommand command) {
      super(command);
    }

    @Override
    public CommandArguments key(Object key) {
      if (key == null) {
        throw refused("key");
      }
      return super.key(key);
    }

    @Override
    public CommandArguments add(Object arg) {
      if (arg == null) {
        throw refused("argument");
      }
      return super.add(arg);
    }

    @Override
    public CommandArguments add(String arg) {
      if (arg == null) {
        throw refused("argument");
      }
      return super.add(arg);
    }

    @Override
    public CommandArguments add(byte[] arg) {
      if (arg == null) {
        throw refused("argument");
      }
      return super.add(arg);
    }

    @Override
    public CommandArguments add(Rawable arg) {
      if (arg == null) {
        throw refused("argument");
      }
      return super.add(arg);
    }

    private IllegalArgumentException refused(String what) {
      String name = new String(getCommand().getRaw(), StandardCharsets.UTF_8);
      // size() counts the command itself, so it is the 1-based position of the refused argument.
      return new IllegalArgumentException(name + ": " + what + " #" + size()
          + " is null (Redis has no null;" + " refused before sending)");
    }
  }
}
