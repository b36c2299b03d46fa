package io.dyno.jedis.internal;

import io.dyno.core.DynoException;
import io.dyno.core.HostToken;
import io.dyno.core.NoAvailableHostsException;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.routing.TokenRingTopology;
import io.dyno.core.routing.Topology;
import io.dyno.core.routing.TopologyException;
import io.dyno.core.topology.ClusterDescribeTokenMapSupplier;
import io.dyno.core.topology.ClusterDescription;
import io.dyno.core.topology.RefreshStatus;
import io.dyno.core.topology.TopologyRefresher;
import io.dyno.core.topology.UnusableAnswerException;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code DynoJedisClient.build()} checks of its first topology before it opens a connection:
 * that there is one (or that the client may start without), and that a local rack the application
 * named is one of the cluster's racks. Only at build: later refreshes never fail a running client
 * (a rack that disappears then is one warning from the refresher, and requests spread).
 */
public final class StartupChecks {
  private static final Logger LOG = LoggerFactory.getLogger(StartupChecks.class);

  private StartupChecks() {}

  /**
   * Fails when the first refresh found no node and {@code failOnStartupIfNoHosts} is set, else warns.
   * The advice to set it false is given only when it can help: when nothing answered (the nodes may
   * come up later), not when a source answered with something unusable (a wrong URL or path, a
   * malformed document, a topology that cannot be served), which no wait will mend.
   */
  public static void firstTopology(
      String app,
      DynoConfig cfg,
      TopologyRefresher refresher,
      RefreshStatus first,
      String sources) {
    if (!refresher.current().hosts().isEmpty()) {
      return;
    }
    String why = "no usable topology from " + sources + ": "
        + (first.lastError() != null ? first.lastError() : first);
    if (cfg.failOnStartupIfNoHosts()) {
      throw new DynoException("DynoJedisClient " + app + ": " + why
          + (answeredUnusably(refresher.lastFailure())
              ? ""
              : ". If the cluster is not up yet, failOnStartupIfNoHosts=false starts the client"
                  + " anyway, serving once nodes appear"));
    }
    // The refresher keeps asking every refresh period; calls fail with NoAvailableHostsException
    // until then.
    LOG.warn(
        "DynoJedisClient {}: starting without nodes (failOnStartupIfNoHosts=false): {}", app, why);
  }

  /**
   * Explains a start-up that reached no node when the nodes came from Dynomite's own
   * {@code /cluster_describe} and every one refused the connection. That document gives peer ports
   * only; the client port is derived from each (peer port + 1 by default, Dynomite's convention),
   * so a cluster whose client ports follow another rule is refused everywhere. Any other failure is
   * returned as it is.
   *
   * @param sources the host and token sources the client was given
   */
  public static RuntimeException noNodeAnswered(
      String app, NoAvailableHostsException failure, Object... sources) {
    boolean fromPeerPorts = false;
    for (Object source : sources) {
      if (source instanceof ClusterDescribeTokenMapSupplier describe
          && describe.lastDescription() != null
          && describe.lastDescription().shape() == ClusterDescription.Shape.DYNOMITE) {
        fromPeerPorts = true;
      }
    }
    if (!fromPeerPorts || !refused(failure.getCause())) {
      return failure;
    }
    return new NoAvailableHostsException(
        "DynoJedisClient " + app + ": every node refused the connection at its client port, which"
            + " was derived from the peer port that Dynomite's /cluster_describe gives (peer port + 1"
            + " unless clientPortFromPeerPort says otherwise). If your nodes' client ports follow"
            + " another rule, give it: ClusterDescribeTokenMapSupplier.builder()"
            + ".clientPortFromPeerPort(peer -> ...), or read Dynomite-manager's cluster_describe"
            + " (" + ClusterDescribeTokenMapSupplier.MANAGER_PATH + "), which gives client ports."
            + " Details: " + failure.getMessage(),
        failure);
  }

  private static boolean refused(Throwable failure) {
    for (Throwable c = failure; c != null; c = c.getCause()) {
      if (c instanceof ConnectException) {
        return true;
      }
    }
    return false;
  }

  /** Whether the failure (or one of its causes) says a source answered, but with nothing usable. */
  static boolean answeredUnusably(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof UnusableAnswerException || t instanceof TopologyException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Fails when {@code rack}, set explicitly by the application, does not place the client in one
   * rack of {@code topology}: a rack the cluster lacks (a typo, another cluster's zone names), or
   * one found in several datacenters when none is configured. Either would silently spread every
   * request over all racks, across zones. {@code datacenter} is the resolved local datacenter; one
   * the cluster lacks is ignored, as routing ignores it. No check before a topology is known.
   */
  public static void localRack(String app, Topology topology, String rack, String datacenter) {
    if (!(topology instanceof TokenRingTopology ring) || ring.hostTokens().isEmpty()) {
      return;
    }
    Map<String, Set<String>> racksByDc = new TreeMap<>();
    for (HostToken ht : ring.hostTokens()) {
      racksByDc
          .computeIfAbsent(ht.host().datacenter(), k -> new TreeSet<>())
          .add(ht.host().rack());
    }
    String dc = datacenter != null && racksByDc.containsKey(datacenter) ? datacenter : null;
    List<String> dcsWithRack = new ArrayList<>();
    racksByDc.forEach((d, racks) -> {
      if ((dc == null || dc.equals(d)) && racks.contains(rack)) dcsWithRack.add(d);
    });
    if (dcsWithRack.size() == 1) {
      return;
    }
    String fix =
        ": fix localRack(...), or call allowUnknownLocalRack() to spread requests over every rack";
    if (dcsWithRack.isEmpty()) {
      throw new IllegalArgumentException(
          "DynoJedisClient " + app + ": local rack '" + rack + "' is not in the "
              + (dc != null
                  ? "cluster's datacenter '" + dc + "' (the cluster's racks: "
                  : "cluster (its racks: ")
              + racks(racksByDc) + ")" + fix);
    }
    throw new IllegalArgumentException(
        "DynoJedisClient " + app + ": local rack '" + rack + "' is in several"
            + " datacenters (" + String.join(", ", dcsWithRack)
            + "): set localDatacenter(...) to say which, or call"
            + " allowUnknownLocalRack() to spread requests over every rack");
  }

  /** The cluster's racks by name, prefixed with their datacenter when there are several. */
  private static String racks(Map<String, Set<String>> racksByDc) {
    boolean oneDc = racksByDc.size() == 1;
    return racksByDc.entrySet().stream()
        .flatMap(e -> e.getValue().stream().map(r -> oneDc ? r : e.getKey() + "/" + r))
        .collect(Collectors.joining(", "));
  }
}
