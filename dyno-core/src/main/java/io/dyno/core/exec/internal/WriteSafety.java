package io.dyno.core.exec.internal;

import io.dyno.core.DynoConnectionException;
import io.dyno.core.DynoException;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.engine.internal.CallSpec;
import io.dyno.core.exec.internal.CallDecider.Context;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.internal.KeyText;
import io.dyno.core.internal.KnownCommands.Kind;
import io.dyno.core.routing.internal.DivergedKeys;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What keeps a write from leaving the racks apart, for {@link CallDecider}: whether a command only
 * reads (so that a read served by another rack is not taken for a diverged key) or replaces a key's
 * whole value (so that such a write may bring a diverged key home), both from the call's
 * {@link CallSpec}, when a preferred owner
 * is away (not merely busy or slow), and the words of the two failures that exist for that reason
 * — a non-idempotent write held in its preferred owner's rack, and a write the local store refused
 * after Dynomite had already forwarded it to the other racks.
 */
final class WriteSafety {
  private WriteSafety() {}

  /**
   * Whether {@code call} replaces its key's whole value whatever it held, in a shape the driver
   * marks idempotent (which a SET with NX or GET is not). Written through the preferred owner, such
   * a write is replicated to every rack and leaves them equal.
   */
  static boolean isWholeValueWrite(CallSpec call) {
    return call.idempotent() && call.kind() == Kind.WHOLE_VALUE_WRITE;
  }

  /**
   * The order {@code call} walks {@code candidates} in: its key's remembered rack first
   * ({@link DivergedKeys#preferring}), except for a whole-value write while the preferred owner
   * (the first candidate) is in rotation — the write that brings the key home.
   */
  static List<Host> candidatesFor(CallSpec call, List<Host> candidates, Context ctx) {
    List<Host> order = ctx.diverged().preferring(call.key(), candidates);
    return order != candidates && isWholeValueWrite(call) && ctx.health().isUp(candidates.get(0))
        ? candidates
        : order;
  }

  /**
   * Whether a borrow failed because no connection to the node could be opened (the pool's connect
   * failures carry the driver's error as their cause), not because the pool was busy (a
   * {@code PoolTimeoutException}) or draining (no cause).
   */
  static boolean connectFailed(DynoException borrowFailure) {
    return borrowFailure instanceof DynoConnectionException && borrowFailure.getCause() != null;
  }

  /**
   * Whether a borrow failed because the node is leaving the topology (its pool draining, no cause):
   * a non-idempotent write may then go to another rack, as this node will not serve its key again.
   */
  static boolean ownerLeaving(DynoException borrowFailure) {
    return borrowFailure instanceof DynoConnectionException && borrowFailure.getCause() == null;
  }

  /**
   * The failure of a non-idempotent write kept off the other racks: {@code preferred} (the key's
   * first candidate) {@code why} ("is out of rotation", "could not take it"), {@code last} the
   * failure on it, if any.
   */
  static DynoConnectionException heldInRack(
      String command, Object key, Host preferred, String why, DynoException last) {
    return new DynoConnectionException(
        command + (key == null ? "" : " on key " + KeyText.show(key))
            + " was not sent to another rack: its preferred owner " + preferred + " " + why
            + (last == null ? "" : " (" + last.getMessage() + ")") + ", and " + command
            + " is not idempotent: another rack would apply it and " + preferred.rack()
            + " never would (Dynomite does not repair replicas), so the racks' values would"
            + " differ and a counter could hand out a value twice. Set failoverNonIdempotentWrites"
            + "=true to send it to another rack anyway",
        preferred,
        last instanceof DynoConnectionException c ? c.kind() : FailureKind.CONNECTION,
        last);
  }

  /**
   * Why {@code host} is away, or null when it is in rotation. A node only steered away from for its
   * latency is not away: it still takes the other racks' replication, as a busy one does.
   */
  static String whyAway(HealthTracker health, Host host) {
    return health.whyOut(host);
  }

  /**
   * Why a non-idempotent write may not go to {@code owner} now, or null when it goes there, after
   * {@code unsent} failures to hand it over: then always, a busy owner too, since a dying node looks
   * busy (its connect pending, its in-flight limit reached) before it looks unreachable.
   */
  static String whyHeld(HealthTracker health, Host owner, int unsent) {
    return unsent == 0 ? whyAway(health, owner) : "could not take it";
  }

  /** True when some candidate of the call is in another rack than its first. */
  static boolean hasOtherRacks(ReplicaChooser call) {
    String first = call.candidate(0).rack();
    for (int i = 1; i < call.candidateCount(); i++) {
      if (!first.equals(call.candidate(i).rack())) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code e}, or — when it ends a write ({@code spec}) because the node's own store refused it,
   * through Dynomite — {@code e} saying the write may have been applied in the call's other racks.
   */
  static DynoException refusalNoted(
      DynoException e, CallSpec spec, ReplicaChooser call, boolean datastoreMode) {
    if (!(e instanceof DynoConnectionException c)
        || c.host() == null
        || datastoreMode
        || spec.read()
        || !localStoreRefused(c)) {
      return e;
    }
    Set<String> others = new LinkedHashSet<>();
    for (int i = 0; i < call.candidateCount(); i++) {
      others.add(call.candidate(i).rack());
    }
    others.remove(c.host().rack());
    return mayBeAppliedElsewhere(c, spec.command(), others);
  }

  /**
   * True when {@code failure} is the local store's refusal of a write that Dynomite forwards to the
   * other racks before its own store answers ({@code Storage: Datastore refused connection}, or the
   * Redis refusals OOM, MISCONF, READONLY).
   */
  static boolean localStoreRefused(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (FailureKind.isLocalStoreRefusal(t.getMessage())) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code e} (a failure whose node's own store refused the write) with a note that {@code command}
   * may have been applied in {@code otherRacks} all the same.
   */
  private static DynoConnectionException mayBeAppliedElsewhere(
      DynoConnectionException e, String command, Set<String> otherRacks) {
    Host refusedBy = e.host();
    String where = otherRacks.isEmpty() ? "the other racks" : String.join(", ", otherRacks);
    DynoConnectionException out = new DynoConnectionException(
        e.getMessage() + "; the store of " + refusedBy
            + " refused the write, but Dynomite forwards a write to the other racks before its"
            + " local store answers, so " + command + " may have been applied in " + where
            + " though not in " + refusedBy.rack(),
        e.host(),
        e.kind(),
        e.getCause());
    for (Throwable s : e.getSuppressed()) {
      out.addSuppressed(s);
    }
    return out;
  }
}
