package io.dyno.spring;

import io.dyno.core.Host;
import io.dyno.core.routing.Topology;
import io.dyno.jedis.DynoJedisClient;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * A client's health as Actuator shows it: DOWN when no node of the local rack takes traffic (every
 * call then crosses racks, or fails), UP otherwise; with the nodes up per rack. A node is up while its
 * host source reports it and the client has not taken it out of rotation after repeated failures
 * ({@link DynoJedisClient#isNodeUp}); the client learns that from its calls and connection attempts, and
 * a probe brings a node back. Without a known local rack, DOWN only when no node at all is up.
 */
public class DynoHealthIndicator extends AbstractHealthIndicator {
  private final DynoJedisClient client;

  /**
   * The health of {@code client}.
   *
   * @param client the client to report on
   */
  public DynoHealthIndicator(DynoJedisClient client) {
    super("Dyno health check failed");
    this.client = Objects.requireNonNull(client, "client");
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    Topology topology = client.topology();
    if (topology == null) {
      builder.down().withDetail("reason", "no topology yet");
      return;
    }
    String localRack = topology.localRack();
    String localDc = topology.localDatacenter();
    boolean oneDatacenter =
        topology.hosts().stream().map(Host::datacenter).distinct().count() <= 1;
    Map<String, RackCount> racks = new TreeMap<>();
    if (localRack != null) {
      racks.put(rackName(oneDatacenter, localDc, localRack), new RackCount());
    }
    int localUp = 0;
    int up = 0;
    for (Host h : topology.hosts()) {
      boolean nodeUp = client.isNodeUp(h);
      RackCount count = racks.computeIfAbsent(
          rackName(oneDatacenter, h.datacenter(), h.rack()), k -> new RackCount());
      count.nodes++;
      if (nodeUp) {
        count.up++;
        up++;
        if (h.rack().equals(localRack) && (localDc == null || localDc.equals(h.datacenter()))) {
          localUp++;
        }
      }
    }
    boolean healthy = localRack != null ? localUp > 0 : up > 0;
    (healthy ? builder.up() : builder.down())
        .withDetail(
            "localRack",
            localRack != null ? localRack : "unknown (requests spread over every rack)");
    if (localDc != null) {
      builder.withDetail("localDatacenter", localDc);
    }
    Map<String, Object> nodesUp = new TreeMap<>();
    racks.forEach((rack, count) -> nodesUp.put(rack, Map.of("up", count.up, "nodes", count.nodes)));
    builder.withDetail("racks", nodesUp);
  }

  private static String rackName(boolean oneDatacenter, String datacenter, String rack) {
    return oneDatacenter || datacenter == null ? rack : datacenter + "/" + rack;
  }

  private static final class RackCount {
    int nodes;
    int up;
  }
}
