package io.dyno.loadgen;

import io.dyno.companion.Backend;
import io.dyno.loadgen.target.DynomiteTarget;
import io.dyno.loadgen.target.EmbeddedTarget;
import io.dyno.loadgen.target.Target;
import java.util.Locale;

/**
 * Which cluster {@code --target} names and how it is started: {@code dynomite}, {@code companion}
 * (alias {@code embedded}), {@code auto}, or a running cluster ({@link Target#parse}).
 */
final class TargetChoice {
  private TargetChoice() {}

  /** {@code --target auto}: real Dynomite only when a binary is given (and Redis can run behind it). */
  static boolean autoPicksDynomite(String backend) {
    boolean memory = backend != null && backend.equalsIgnoreCase("memory");
    return !memory && DynomiteTarget.binary().isPresent() && EmbeddedTarget.redisOnPath();
  }

  /** What {@code --target auto} picked and why, as the run prints it. */
  static String describeAuto(String backend) {
    return "target auto: "
        + (autoPicksDynomite(backend)
            ? "real Dynomite, from the binary " + DynomiteTarget.binary().orElseThrow()
            : "the embedded companion cluster ("
                + (DynomiteTarget.binary().isEmpty()
                    ? "no Dynomite binary given: DYNO_DYNOMITE_BINARY=<path> picks real Dynomite"
                    : "--backend memory")
                + ")");
  }

  static Target open(String spec, String backend, int racks, int perRack, String serverCpus) {
    String s = spec == null ? "auto" : spec;
    if (s.equals("auto")) {
      s = autoPicksDynomite(backend) ? "dynomite" : "companion";
    }
    if (serverCpus != null && !s.equals("dynomite")) {
      throw new IllegalArgumentException("--server-cpus " + serverCpus
          + " needs --target dynomite (the companion runs in this JVM; "
          + "pin the whole JVM with taskset instead), target was " + s);
    }
    if (s.equals("dynomite")) {
      if (backend != null
          && !backend.equalsIgnoreCase("redis")
          && !backend.equalsIgnoreCase("auto")) {
        throw new IllegalArgumentException(
            "--backend " + backend + ": real Dynomite always runs in front of redis-server");
      }
      return DynomiteTarget.start(racks, perRack, serverCpus);
    }
    if (s.equals("companion") || s.equals("embedded")) {
      Backend b = backend == null || backend.equals("auto")
          ? null
          : Backend.valueOf(backend.toUpperCase(Locale.ROOT));
      return EmbeddedTarget.start(racks, perRack, b);
    }
    return Target.parse(s);
  }
}
