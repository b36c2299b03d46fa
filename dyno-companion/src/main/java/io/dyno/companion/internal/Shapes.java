package io.dyno.companion.internal;

import io.dyno.core.internal.DynomiteCommands;
import java.util.Arrays;

/**
 * Which client requests the companion serves at all: the commands and argument shapes real Dynomite
 * serves, from the table the client shares ({@link DynomiteCommands}). On anything else Dynomite
 * closes the connection without a reply, and so does the companion. ({@link Commands} then says how
 * a served command is routed.)
 */
final class Shapes {
  private Shapes() {}

  /** True when real Dynomite would close the connection on this request ({@code args[0]} is the command). */
  static boolean closesConnection(String upperName, byte[][] args) {
    if (upperName.equals(Commands.CONSISTENCY_COMMAND)) {
      return false; // Dynomite's own per-connection setting, checked by Connection itself
    }
    return DynomiteCommands.check(upperName, Arrays.asList(args)) != null;
  }
}
