package io.dyno.jedis.internal.mux;

/**
 * Hooks the owner wires to metrics. Called on hot paths (the event loop for {@link #written}): keep
 * implementations cheap and non-blocking.
 */
public interface MuxListener {
  MuxListener NONE = new MuxListener() {};

  /**
   * A request left in a write: {@code queuedNanos} from its submit to the drain that wrote it (any
   * wait for the in-flight limit, then the write-coalescing delay), {@code commands} in it (more
   * than one for a pipeline). Event loop: no allocation, no blocking.
   */
  default void written(String node, int commands, long queuedNanos) {}

  /** One write (socket flush) left carrying {@code commands} commands. Event loop: no allocation, no blocking. */
  default void flushed(String node, int commands) {}

  /** A submit found the connection's in-flight limit reached and waited {@code waitedNanos} (success or not). */
  default void inFlightLimitWaited(String node, long waitedNanos, boolean acquired) {}
}
