/**
 * Dyno's core: topology, hashing, routing, pools, the engine, health, metrics and configuration.
 * No Redis driver. The {@code internal} packages are exported only to the Dyno modules that build on
 * them; an application sees the API packages alone.
 */
module io.dyno.core {
  requires transitive com.netflix.spectator.api;
  requires org.slf4j;
  requires java.net.http;
  requires java.management;
  requires static archaius2.api;

  exports io.dyno.core;
  exports io.dyno.core.config;
  exports io.dyno.core.events;
  exports io.dyno.core.exec;
  exports io.dyno.core.metrics;
  exports io.dyno.core.routing;
  exports io.dyno.core.time;
  exports io.dyno.core.topology;
  exports io.dyno.core.internal to
      io.dyno.jedis,
      io.dyno.companion;
  exports io.dyno.core.internal.json to
      io.dyno.eureka;
  exports io.dyno.core.metrics.internal to
      io.dyno.jedis;
  exports io.dyno.core.engine.internal to
      io.dyno.jedis;
}
