package io.dyno.jedis;

import redis.clients.jedis.exceptions.JedisException;

/**
 * A command the client refuses before touching any connection: the server it talks to cannot serve
 * it (Dynomite closes the connection on commands it does not know), or it has no meaning on a
 * sharded, pooled client. The message names the command and the reason.
 *
 * <p>A {@link JedisException}, so {@code catch (JedisException e)} catches it, but not a
 * {@code JedisDataException}: that one means the server answered with an error reply, and this
 * command never reached a server (callers telling the two apart keep doing so).
 */
public class UnsupportedCommandException extends JedisException {
  /** Serialized with the exception: the refused command's name. */
  private final String command;

  /**
   * The client's own refusal; applications have no reason to make one.
   *
   * @param command the refused command (with its subcommand, e.g. {@code "CONFIG SET"}) or Jedis method
   * @param reason why it is refused, and what to do instead when there is something
   */
  public UnsupportedCommandException(String command, String reason) {
    super(command + " is not supported by DynoJedisClient: " + reason);
    this.command = command;
  }

  /** {@return the refused command, e.g. {@code "MULTI"} or {@code "CONFIG SET"}} */
  public String command() {
    return command;
  }
}
