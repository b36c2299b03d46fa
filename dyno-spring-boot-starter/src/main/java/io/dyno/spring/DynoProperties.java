package io.dyno.spring;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.routing.LoadBalancing;
import io.dyno.jedis.Transport;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * The {@code dyno.*} properties the auto-configured {@code DynoJedisClient} is built from. The cluster
 * comes from exactly one of {@code cluster-describe-url} and {@code hosts}. A setting left unset
 * keeps Dyno's own default (docs/configuration.md has every default and its unit); durations without
 * a unit are milliseconds, as in that table.
 *
 * @param applicationName Names the client in metrics, logs and errors (default dyno).
 * @param clusterDescribeUrl Where Dynomite's cluster_describe (or Dynomite-manager's) is read from,
 *     e.g. http://10.0.0.1:22222/cluster_describe; several are asked in turn until one answers. It
 *     gives the nodes and their tokens, re-read every topology-refresh-period.
 * @param clientPort With cluster-describe-url: the client port of every node, when it is not Dynomite's
 *     peer port + 1 (the default: 8101 gives 8102).
 * @param hosts A fixed cluster instead of cluster-describe-url: one entry per node,
 *     host:port:rack:datacenter:token, port the client port, with an optional sixth field, the node's
 *     TLS port.
 * @param hashtag The cluster's hash tag, e.g. {}.
 * @param localRack The rack (availability zone) this application runs in: its nodes are tried first.
 *     Unset: LOCAL_RACK or EC2_AVAILABILITY_ZONE. A rack the cluster lacks fails the start.
 * @param localDatacenter The datacenter (region) this application runs in. Unset: LOCAL_DATACENTER,
 *     EC2_REGION, else the local rack's.
 * @param allowUnknownLocalRack Start even when local-rack names a rack the cluster does not have
 *     (requests then spread over every rack).
 * @param topologyRefreshPeriod How often nodes and tokens are re-read (default 30 s).
 * @param consistency Dynomite's consistency level for every call (default: the server's, DC_ONE).
 * @param requestDeadline The time a call may take in all, retries and failover included (default:
 *     none).
 * @param hedgeReads Hedged reads: off (default), after:MS (a read unanswered after MS milliseconds also
 *     goes to the next replica) or p99:MS (after the node's recent p99, at least MS).
 * @param retryPolicy RunOnce, RetryNTimes:N or ExponentialBackoff:ATTEMPTS:BASE_MS:MAX_MS (default
 *     ExponentialBackoff:3:10:200).
 * @param retryNonIdempotent Whether commands that are not idempotent may be re-run after an unknown
 *     outcome (default false).
 * @param maxFailoverCount How many other replicas a call may move to (default 3).
 * @param lbStrategy TOKEN_AWARE (default) or ROUND_ROBIN.
 * @param localZoneAffinity Whether the local rack is preferred (default true).
 * @param failOnStartupIfNoHosts Whether the application fails to start when no node answers (default
 *     true).
 * @param startupTimeout How long the start waits for the first nodes (default 5 s).
 * @param compressionThreshold Values longer than this are stored compressed (default 0: off).
 * @param transport How commands travel: MULTIPLEXED (default) or POOLED.
 * @param pool Connections and their timeouts.
 * @param mux The multiplexed transport's settings.
 * @param health When a failing node is taken out of rotation and probed back.
 * @param tls TLS to the nodes.
 */
@ConfigurationProperties("dyno")
public record DynoProperties(
    String applicationName,
    List<String> clusterDescribeUrl,
    Integer clientPort,
    List<String> hosts,
    String hashtag,
    String localRack,
    String localDatacenter,
    boolean allowUnknownLocalRack,
    Duration topologyRefreshPeriod,
    ConsistencyLevel consistency,
    Duration requestDeadline,
    String hedgeReads,
    String retryPolicy,
    Boolean retryNonIdempotent,
    Integer maxFailoverCount,
    LoadBalancing lbStrategy,
    Boolean localZoneAffinity,
    Boolean failOnStartupIfNoHosts,
    Duration startupTimeout,
    DataSize compressionThreshold,
    Transport transport,
    @DefaultValue Pool pool,
    @DefaultValue Mux mux,
    @DefaultValue Health health,
    @DefaultValue Tls tls) {

  /**
   * Connections to each node.
   *
   * @param minConnsPerHost Connections kept open per node (default 1).
   * @param maxConnsPerHost Connections per node at most (default 8).
   * @param maxTimeoutWhenExhausted How long a call waits for a free connection (default 800 ms).
   * @param connectTimeout How long a connection may take to open (default 3 s).
   * @param socketTimeout How long a reply may take (default 2 s).
   * @param idleTimeout An idle connection above the minimum is closed after this (default 60 s).
   * @param keepAliveInterval Idle connections are pinged this often (default 30 s).
   * @param maintenanceInterval The pools' upkeep period (default 1 s).
   */
  public record Pool(
      Integer minConnsPerHost,
      Integer maxConnsPerHost,
      Duration maxTimeoutWhenExhausted,
      Duration connectTimeout,
      Duration socketTimeout,
      Duration idleTimeout,
      Duration keepAliveInterval,
      Duration maintenanceInterval) {}

  /**
   * The multiplexed transport (see docs/configuration.md, "Transport settings").
   *
   * @param connectionsPerNode Shared connections per node and consistency level (default 1).
   * @param maxInFlight Requests unanswered per shared connection (default 1024).
   * @param maxWritesInFlight Writes awaiting their replies per shared connection (default 1; 0: no
   *     bound).
   * @param maxBulkSize The largest bulk string accepted in a reply (default 512MB).
   */
  public record Mux(
      Integer connectionsPerNode,
      Integer maxInFlight,
      Integer maxWritesInFlight,
      DataSize maxBulkSize) {}

  /**
   * Node health: a node whose decayed error score reaches the threshold is skipped, then probed.
   *
   * @param errorThreshold The decayed error score that takes a node out of rotation (default 5.0).
   * @param halfLife The time in which a node's error score halves (default 10 s).
   * @param coolDown The wait between probes of a node out of rotation (default 1 s).
   * @param maxCoolDown The longest wait between probes; failed probes double it (default 1 s).
   */
  public record Health(
      Double errorThreshold, Duration halfLife, Duration coolDown, Duration maxCoolDown) {}

  /**
   * TLS to each node's TLS port (through Dynomite: a TLS terminator in front of it).
   *
   * @param enabled Whether connections use TLS (default false).
   * @param bundle The Spring SSL bundle (spring.ssl.bundle.*) whose trust decides which certificates
   *     are accepted; unset: the JVM's default.
   * @param verifyHostname Whether the certificate must name the node (default true).
   */
  public record Tls(
      boolean enabled, String bundle, @DefaultValue("true") boolean verifyHostname) {}
}
