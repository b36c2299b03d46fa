package io.dyno.companion.internal;

import io.dyno.core.internal.KnownCommands;
import java.util.Arrays;

/**
 * Which client requests the companion serves at all: the commands and argument shapes real Dynomite
 * serves, from the table the client shares ({@link KnownCommands}). On anything else Dynomite
 * closes the connection without a reply (or, missing the request's first argument, waits for it),
 * and so does the companion. ({@link Commands} then says how
 * a served command is routed.)
 */
final class Shapes {
  private Shapes() {}

  /**
   * Why real Dynomite does not serve this request ({@code args[0]} is the command), or null when it
   * does. {@link KnownCommands.Refusal#waits()}: it answers nothing more on the connection;
   * otherwise it closes the connection.
   */
  static KnownCommands.Refusal refusal(String upperName, byte[][] args) {
    if (upperName.equals(Commands.CONSISTENCY_COMMAND)) {
      return null; // Dynomite's own per-connection setting, checked by Connection itself
    }
    return KnownCommands.check(upperName, Arrays.asList(args));
  }
}
