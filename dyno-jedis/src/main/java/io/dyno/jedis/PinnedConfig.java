package io.dyno.jedis;

import io.dyno.core.config.DynoConfig;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;

/**
 * The caller's configuration with the client's application name and mode pinned (they cannot
 * change under a running client); rebuilt only when the source hands out a new value.
 */
final class PinnedConfig implements Supplier<DynoConfig> {
  private record Pair(DynoConfig in, DynoConfig out) {}

  private final Supplier<DynoConfig> source;
  private final String app;
  private final boolean datastore;
  private volatile Pair last;

  PinnedConfig(Supplier<DynoConfig> source, String app, boolean datastore) {
    this.source = source;
    this.app = app;
    this.datastore = datastore;
  }

  @Override
  public DynoConfig get() {
    DynoConfig in = source.get();
    Pair p = last;
    if (p != null && (in == p.in || in == null)) {
      return p.out;
    }
    DynoConfig out;
    try {
      out = in.applicationName().equals(app) && in.datastoreMode() == datastore
          ? in
          : in.toBuilder().applicationName(app).datastoreMode(datastore).build();
    } catch (IllegalArgumentException e) {
      if (p == null) {
        throw new IllegalArgumentException("DynoJedisClient " + app + ": " + e.getMessage(), e);
      }
      // e.g. a consistency level arriving while this client runs in datastore mode: keep the
      // last good one.
      LoggerFactory.getLogger(DynoJedisClient.class)
          .warn(
              "DynoJedisClient {}: ignoring a configuration change that does not fit this client: {}",
              app,
              e.getMessage());
      out = p.out;
    }
    last = new Pair(in, out);
    return out;
  }
}
