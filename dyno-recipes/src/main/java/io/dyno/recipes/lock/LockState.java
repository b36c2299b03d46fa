package io.dyno.recipes.lock;

/** Where a {@link LockLease} stands, as far as its holder can tell. */
public enum LockState {
  /** Granted by a majority of voters and its validity has not run out. */
  HELD,
  /** Its validity ran out without being extended: another client may hold the lock now. */
  EXPIRED,
  /** A reachable majority of voters said the lock is no longer this holder's, or the watchdog could not extend it in time. */
  LOST,
  /** Released by its holder. */
  RELEASED
}
