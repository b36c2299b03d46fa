package io.dyno.spring.internal;

import io.dyno.core.config.DynoConfig;
import io.dyno.core.config.DynoConfigBuilder;
import io.dyno.core.config.HedgePolicy;
import io.dyno.jedis.DynoJedisClient;
import io.dyno.jedis.DynoJedisClientBuilder;
import io.dyno.spring.DynoProperties;
import java.security.NoSuchAlgorithmException;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.util.unit.DataSize;

/**
 * Maps {@link DynoProperties} onto {@link DynoJedisClientBuilder} and {@link DynoConfig}. Only what
 * is set is applied, so Dyno's own defaults stay the one source of defaults; a bad value fails naming
 * the {@code dyno.*} property and the value.
 */
public final class ClientSettings {
  private ClientSettings() {}

  /**
   * A builder with every set property applied and the cluster from {@code source}.
   *
   * @param sslBundles Spring Boot's SSL bundles, or null when the application has none
   */
  public static DynoJedisClientBuilder builder(
      DynoProperties p, ClusterSource source, SslBundles sslBundles) {
    DynoJedisClientBuilder b = DynoJedisClient.builder().config(config(p));
    if (source.hostSupplier() != null) {
      b.hostSupplier(source.hostSupplier());
    }
    b.tokenMapSupplier(source.tokenMapSupplier());
    set("dyno.hashtag", p.hashtag(), b::hashtag);
    set("dyno.local-rack", p.localRack(), b::localRack);
    set("dyno.local-datacenter", p.localDatacenter(), b::localDatacenter);
    if (p.allowUnknownLocalRack()) {
      b.allowUnknownLocalRack();
    }
    set("dyno.topology-refresh-period", p.topologyRefreshPeriod(), b::topologyRefreshPeriod);
    set(
        "dyno.compression-threshold",
        p.compressionThreshold(),
        size -> b.compressionThreshold(bytes(size)));
    set("dyno.transport", p.transport(), b::transport);
    DynoProperties.Mux mux = p.mux();
    set("dyno.mux.connections-per-node", mux.connectionsPerNode(), b::muxConnectionsPerNode);
    set("dyno.mux.max-in-flight", mux.maxInFlight(), b::muxMaxInFlight);
    set("dyno.mux.max-writes-in-flight", mux.maxWritesInFlight(), b::muxMaxWritesInFlight);
    set("dyno.mux.max-bulk-size", mux.maxBulkSize(), size -> b.muxMaxBulkBytes(bytes(size)));
    tls(p.tls(), sslBundles, b);
    return b;
  }

  /** The {@link DynoConfig} part of the properties (pools, timeouts, retries, health, consistency). */
  public static DynoConfig config(DynoProperties p) {
    DynoConfigBuilder c = DynoConfig.builder();
    set("dyno.application-name", p.applicationName(), c::applicationName);
    set("dyno.consistency", p.consistency(), c::defaultConsistency);
    set("dyno.request-deadline", p.requestDeadline(), c::requestDeadline);
    set("dyno.hedge-reads", p.hedgeReads(), text -> c.hedgeReads(HedgePolicy.parse(text)));
    set("dyno.retry-policy", p.retryPolicy(), (Consumer<String>) c::retryPolicy);
    set("dyno.retry-non-idempotent", p.retryNonIdempotent(), c::retryNonIdempotent);
    set("dyno.max-failover-count", p.maxFailoverCount(), c::maxFailoverCount);
    set("dyno.lb-strategy", p.lbStrategy(), c::lbStrategy);
    set("dyno.local-zone-affinity", p.localZoneAffinity(), c::localZoneAffinity);
    set("dyno.fail-on-startup-if-no-hosts", p.failOnStartupIfNoHosts(), c::failOnStartupIfNoHosts);
    set("dyno.startup-timeout", p.startupTimeout(), c::startupTimeout);
    DynoProperties.Pool pool = p.pool();
    set("dyno.pool.min-conns-per-host", pool.minConnsPerHost(), c::minConnsPerHost);
    set("dyno.pool.max-conns-per-host", pool.maxConnsPerHost(), c::maxConnsPerHost);
    set(
        "dyno.pool.max-timeout-when-exhausted",
        pool.maxTimeoutWhenExhausted(),
        c::maxTimeoutWhenExhausted);
    set("dyno.pool.connect-timeout", pool.connectTimeout(), c::connectTimeout);
    set("dyno.pool.socket-timeout", pool.socketTimeout(), c::socketTimeout);
    set("dyno.pool.idle-timeout", pool.idleTimeout(), c::idleTimeout);
    set("dyno.pool.keep-alive-interval", pool.keepAliveInterval(), c::keepAliveInterval);
    set("dyno.pool.maintenance-interval", pool.maintenanceInterval(), c::maintenanceInterval);
    DynoProperties.Health health = p.health();
    set("dyno.health.error-threshold", health.errorThreshold(), c::healthErrorThreshold);
    set("dyno.health.half-life", health.halfLife(), c::healthHalfLife);
    set("dyno.health.cool-down", health.coolDown(), c::healthCoolDown);
    set("dyno.health.max-cool-down", health.maxCoolDown(), c::healthMaxCoolDown);
    try {
      return c.build();
    } catch (IllegalArgumentException e) {
      throw new InvalidPropertyException(
          "the dyno.* properties named above", "dyno.*: " + e.getMessage(), e);
    }
  }

  private static void tls(DynoProperties.Tls tls, SslBundles sslBundles, DynoJedisClientBuilder b) {
    if (!tls.enabled()) {
      if (tls.bundle() != null) {
        throw new InvalidPropertyException(
            "dyno.tls.enabled",
            "dyno.tls.bundle=" + tls.bundle() + " is set but dyno.tls.enabled is not true");
      }
      return;
    }
    SSLContext context;
    if (tls.bundle() == null) {
      try {
        context = SSLContext.getDefault();
      } catch (NoSuchAlgorithmException e) {
        throw new InvalidPropertyException(
            "dyno.tls.bundle",
            "dyno.tls.enabled: the JVM has no default SSLContext: " + e.getMessage(),
            e);
      }
    } else if (sslBundles == null) {
      throw new InvalidPropertyException(
          "dyno.tls.bundle",
          "dyno.tls.bundle=" + tls.bundle()
              + ": the application has no SSL bundles (spring.ssl.bundle.*, SslAutoConfiguration)");
    } else {
      context = call(
          "dyno.tls.bundle", tls.bundle(), name -> sslBundles.getBundle(name).createSslContext());
    }
    b.tlsContext(context, tls.verifyHostname());
  }

  private static int bytes(DataSize size) {
    long n = size.toBytes();
    if (n > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("at most " + Integer.MAX_VALUE + " bytes");
    }
    return (int) n;
  }

  /** Applies {@code value} when set; a refusal names the property and the value. */
  private static <T> void set(String property, T value, Consumer<T> setter) {
    if (value != null) {
      call(property, value, v -> {
        setter.accept(v);
        return null;
      });
    }
  }

  private static <T, R> R call(String property, T value, Function<T, R> f) {
    try {
      return f.apply(value);
    } catch (RuntimeException e) {
      throw new InvalidPropertyException(
          property, property + "=" + value + ": " + e.getMessage(), e);
    }
  }
}
