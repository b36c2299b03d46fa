package io.dyno.loadgen.bench;

import io.dyno.core.ConsistencyLevel;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

/**
 * What the load generator drives: one client library talking to the cluster. Implementations are
 * thread-safe; {@link #close()} is idempotent.
 */
public interface Driver extends AutoCloseable {
  /** One operation of a pipelined batch. {@code value} is null for reads. */
  record Op(boolean read, String key, String value) {}

  /** A short name for tables and reports ("dyno", "jedis-pools", "lettuce", ...). */
  String name();

  String get(String key) throws Exception;

  void set(String key, String value) throws Exception;

  /** Sends {@code ops} as one pipeline and waits for every reply; throws if any failed. */
  void pipeline(List<Op> ops) throws Exception;

  /** Whether {@link #pipeline} works; a driver without pipelines is refused the pipeline setting by name. */
  default boolean supportsPipelines() {
    return true;
  }

  /** Whether {@link #getAsync}/{@link #setAsync} keep requests in flight without a thread each. */
  default boolean supportsAsync() {
    return false;
  }

  /** GET through the client's asynchronous API (for {@code async=N}); completes on the client's threads. */
  default CompletableFuture<String> getAsync(String key) {
    throw new UnsupportedOperationException(
        "driver " + name() + " has no asynchronous API (setting async)");
  }

  /** SET through the client's asynchronous API. */
  default CompletableFuture<String> setAsync(String key, String value) {
    throw new UnsupportedOperationException(
        "driver " + name() + " has no asynchronous API (setting async)");
  }

  /** Whether {@link #onBorrow} will ever be called (drivers without a pool have no borrow delay). */
  default boolean measuresBorrow() {
    return false;
  }

  /** Registers a sink for connection borrow delays in nanoseconds. */
  default void onBorrow(LongConsumer nanos) {}

  /**
   * For drivers that keep borrow delays in their own metrics rather than calling {@link #onBorrow}:
   * the delays recorded since the previous call, or null.
   */
  default org.HdrHistogram.Histogram borrowSinceLastCall() {
    return null;
  }

  /** The consistency level in force (DC_ONE unless the driver supports others). */
  default ConsistencyLevel consistency() {
    return ConsistencyLevel.DC_ONE;
  }

  /**
   * Changes the consistency level while the bench runs. Drivers that only speak plain Redis to each
   * node (no Dynomite consistency) refuse anything but DC_ONE, naming themselves.
   */
  default void consistency(ConsistencyLevel level) {
    if (level != ConsistencyLevel.DC_ONE) {
      throw new IllegalArgumentException("setting consistency: driver " + name()
          + " only runs DC_ONE (it has no Dynomite " + "consistency levels); asked for " + level);
    }
  }

  /** Requests sent per node id ({@code address:port}) so far, as the client counted them; empty when unknown. */
  default Map<String, Long> requestsByNode() {
    return Map.of();
  }

  /** Extra numbers the driver wants in the final summary (e.g. the client's own metrics). */
  default Map<String, String> summary() {
    return Map.of();
  }

  @Override
  void close();
}
