package io.dyno.jedis;

import io.dyno.core.DynoException;

/**
 * A command the client refuses before touching any connection: the server it talks to cannot serve
 * it (Dynomite closes the connection on commands it does not know), or it has no meaning on a
 * sharded, pooled client. The message names the command and the reason.
 */
public class UnsupportedCommandException extends DynoException {
  private final String command;

  public UnsupportedCommandException(String command, String reason) {
    super(command + " is not supported by DynoJedisClient: " + reason);
    this.command = command;
  }

  /** The refused command, e.g. {@code "MULTI"} or {@code "CONFIG SET"}. */
  public String command() {
    return command;
  }
}
