package io.dyno.jedis.internal.mux;

import static io.dyno.jedis.internal.mux.DynomiteWire.DYNO_CONFIG;

import io.dyno.core.ConsistencyLevel;
import java.nio.charset.StandardCharsets;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * What a new connection sends before it carries anyone's command: AUTH and SELECT (datastore mode,
 * then a PING that makes a Redis wanting a password say so) and Dynomite's consistency level. Each
 * step is sent alone and awaited, since Dynomite drops what is pipelined behind DYNO_CONFIG. The
 * same steps open the shared channel and the caller-owned socket beside it.
 */
final class MuxHandshake {
  /** Sends one command alone and returns its raw reply; throws naming {@code what} and the node. */
  interface Step {
    Object send(CommandArguments cmd, String what, long deadlineNanos);
  }

  private MuxHandshake() {}

  static void run(
      String node,
      MuxSettings settings,
      ConsistencyLevel consistency,
      long deadlineNanos,
      Step step) {
    if (settings.password() != null) {
      CommandArguments auth = new CommandArguments(Protocol.Command.AUTH);
      if (settings.user() != null) {
        auth.add(settings.user());
      }
      auth.add(settings.password());
      Object reply = step.send(auth, "AUTH", deadlineNanos);
      if (reply instanceof JedisDataException e) {
        // Redis never echoes the password; the user name helps.
        throw new JedisAccessControlException(node + " refused the credentials"
            + (settings.user() != null ? " of user '" + settings.user() + "'" : "") + ": "
            + e.getMessage());
      }
    }
    if (settings.database() != 0) {
      Object reply = step.send(
          new CommandArguments(Protocol.Command.SELECT).add(settings.database()),
          "SELECT " + settings.database(),
          deadlineNanos);
      if (!isOk(reply)) {
        throw new JedisConnectionException(
            "node " + node + " refused database " + settings.database() + ": " + describe(reply));
      }
    }
    if (settings.pingOnOpen()) {
      Object reply = step.send(new CommandArguments(Protocol.Command.PING), "PING", deadlineNanos);
      if (reply instanceof JedisDataException e) {
        String m = e.getMessage();
        if (m != null && m.startsWith("NOAUTH")) {
          throw new JedisAccessControlException(node + " requires a password: " + m
              + (settings.password() == null
                  ? " (no password is configured: set datastorePassword or the host's password)"
                  : ""));
        }
        throw new JedisConnectionException(
            "node " + node + " answered PING on a new connection with " + describe(e));
      }
    }
    if (consistency != null) {
      String what = "DYNO_CONFIG:CONN_CONSISTENCY " + consistency;
      Object reply =
          step.send(new CommandArguments(DYNO_CONFIG).add(consistency.name()), what, deadlineNanos);
      if (!isOk(reply)) {
        throw new JedisConnectionException(
            "node " + node + " answered " + describe(reply) + " to " + what);
      }
    }
  }

  private static boolean isOk(Object reply) {
    return reply instanceof byte[] b && "OK".equals(new String(b, StandardCharsets.UTF_8));
  }

  /** A raw reply for a message. */
  static String describe(Object raw) {
    if (raw instanceof byte[] b) {
      return "'" + new String(b, StandardCharsets.UTF_8) + "'";
    }
    if (raw instanceof JedisDataException e) {
      return "error '" + e.getMessage() + "'";
    }
    return String.valueOf(raw);
  }
}
