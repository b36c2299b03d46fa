package io.dyno.recipes.lock;

/**
 * Told by the watchdog when a kept-alive lock is lost. Runs on the watchdog's thread: keep it short
 * (set a flag, interrupt the worker); the holder must stop touching the protected resource.
 */
@FunctionalInterface
public interface LockListener {
  void onLost(LockLease lease, String reason);
}
