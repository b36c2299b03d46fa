package io.dyno.loadgen.target;

import io.dyno.companion.Backend;
import io.dyno.companion.CompanionCluster;
import io.dyno.companion.CompanionNode;
import io.dyno.companion.CompanionStats;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.loadgen.bench.Count;
import io.dyno.loadgen.bench.NodeStat;
import io.dyno.loadgen.bench.ServerCounters;
import java.io.File;
import java.util.List;

/** An embedded companion cluster started for the run (3 racks × 2 nodes unless told otherwise). */
public final class EmbeddedTarget implements Target {
  private final CompanionCluster cluster;
  private final boolean owned;

  public EmbeddedTarget(CompanionCluster cluster, boolean owned) {
    this.cluster = cluster;
    this.owned = owned;
  }

  /** Starts a cluster; {@code backend} null picks REDIS when redis-server is on the PATH, else MEMORY. */
  public static EmbeddedTarget start(int racks, int nodesPerRack, Backend backend) {
    Backend b = backend != null ? backend : (redisOnPath() ? Backend.REDIS : Backend.MEMORY);
    return new EmbeddedTarget(
        CompanionCluster.builder()
            .racks(racks)
            .nodesPerRack(nodesPerRack)
            .backend(b)
            .start(),
        true);
  }

  /** Whether an executable {@code redis-server} is on the PATH. */
  public static boolean redisOnPath() {
    String path = System.getenv("PATH");
    if (path == null) return false;
    for (String dir : path.split(File.pathSeparator)) {
      if (new File(dir, "redis-server").canExecute()) return true;
    }
    return false;
  }

  public CompanionCluster cluster() {
    return cluster;
  }

  @Override
  public String describe() {
    return "embedded companion cluster, " + cluster.racks().size() + " racks x "
        + cluster.nodes(cluster.racks().get(0)).size() + " nodes, "
        + cluster.backend().name().toLowerCase() + " backend";
  }

  @Override
  public List<Host> hosts() {
    return cluster.hosts();
  }

  @Override
  public List<HostToken> tokens() {
    return cluster.hostTokens();
  }

  @Override
  public String localRack() {
    return cluster.racks().get(0);
  }

  /**
   * The companion's own counters (requests from clients, of those forwarded to the owner) and, with
   * the redis backend, the GET + SET calls of each node's redis-server. The companion counts at once,
   * so a snapshot needs no waiting.
   */
  @Override
  public ServerCounters<List<NodeStat>> serverCounters() {
    return new ServerCounters<>() {
      @Override
      public List<NodeStat> snapshot() {
        return cluster.nodes().stream()
            .map(n -> {
              CompanionStats s = n.stats();
              Count backend = cluster.backend() == Backend.REDIS
                  ? RedisCommandStats.getAndSetCalls(n.redisPort())
                  : Count.na("in-memory backend, no Redis behind the node");
              return new NodeStat(
                  n.host().id(),
                  n.rack(),
                  Count.na("not counted by the server"),
                  Count.of(s.requests()),
                  Count.of(s.forwarded()),
                  backend);
            })
            .toList();
      }

      @Override
      public List<NodeStat> between(
          List<NodeStat> before, List<NodeStat> after, ConsistencyLevel consistency) {
        return Target.deltas(before, after);
      }
    };
  }

  /** The companion's event loops and admin threads ({@code companion-io-*}, {@code companion-admin}). */
  @Override
  public String serverThreadPrefix() {
    return "companion-";
  }

  @Override
  public String noServerCpuReason() {
    return "the companion runs inside this JVM: its CPU cannot be told apart from the client's";
  }

  @Override
  public void close() {
    if (owned) {
      cluster.close();
    }
  }

  CompanionNode node(String rack, int i) {
    return cluster.node(rack, i);
  }
}
