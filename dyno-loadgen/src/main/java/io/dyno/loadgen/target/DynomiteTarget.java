package io.dyno.loadgen.target;

import io.dyno.companion.dynomite.DynomiteCluster;
import io.dyno.companion.dynomite.DynomiteNode;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.loadgen.bench.Count;
import io.dyno.loadgen.bench.JsonIn;
import io.dyno.loadgen.bench.NodeStat;
import io.dyno.loadgen.bench.ServerCounters;
import io.dyno.loadgen.bench.ServerCpu;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real Dynomite cluster started for the run as processes ({@link DynomiteCluster}: one
 * {@code dynomite} and one {@code redis-server} per node, 3 racks × 2 nodes unless told otherwise),
 * with a short {@code stats_interval} so that {@code /info} can be read before and after every run.
 *
 * <p>Per node, from Dynomite's own counters and the Redis behind it:
 * <ul>
 *   <li>received: {@code client_read_requests + client_write_requests};</li>
 *   <li>forwarded to another node of its rack: {@code peer_requests} minus the copies of its clients'
 *       writes it sends to each other rack ({@code client_write_requests × (racks − 1)}); at DC_ONE
 *       that is exactly the requests whose key another node of the rack owns (checked on this binary:
 *       a node sent 13 requests to its rack's other owner and 5 write copies to the other rack;
 *       {@code peer_requests} was 18). At other levels the node also sends reads to other racks, so the
 *       count is n/a;</li>
 *   <li>its Redis ran: GET + SET calls of {@code INFO commandstats}.</li>
 * </ul>
 */
public final class DynomiteTarget implements Target {
  private final DynomiteCluster cluster;
  private final Duration statsInterval;
  private final String pinnedTo;

  private DynomiteTarget(DynomiteCluster cluster, Duration statsInterval, String pinnedTo) {
    this.cluster = cluster;
    this.statsInterval = statsInterval;
    this.pinnedTo = pinnedTo;
  }

  /** The dynomite binary as {@link DynomiteCluster#binary()} finds it. */
  public static Optional<Path> binary() {
    return DynomiteCluster.binary();
  }

  /**
   * Starts the cluster and returns once every node replicates.
   *
   * @param serverCpus a {@code taskset} CPU list the dynomite and redis-server processes are moved to
   *     after they start (e.g. {@code "1"}), or null to leave them where the scheduler puts them
   */
  public static DynomiteTarget start(int racks, int nodesPerRack, String serverCpus) {
    if (binary().isEmpty()) {
      throw new IllegalArgumentException("target dynomite: " + DynomiteCluster.binaryHint());
    }
    Duration interval = Duration.ofMillis(250);
    DynomiteCluster c = DynomiteCluster.builder()
        .racks(racks)
        .nodesPerRack(nodesPerRack)
        .statsInterval(interval)
        .start();
    try {
      if (serverCpus != null) {
        for (DynomiteNode n : c.nodes()) {
          pin(n.pid(), serverCpus);
          pin(n.redisPid(), serverCpus);
        }
      }
      return new DynomiteTarget(c, interval, serverCpus);
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /** Moves every thread of process {@code pid} to {@code cpus} with {@code taskset -a -cp}. */
  static void pin(long pid, String cpus) {
    try {
      Process p = new ProcessBuilder("taskset", "-a", "-cp", cpus, Long.toString(pid))
          .redirectErrorStream(true)
          .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("taskset -a -cp " + cpus + " " + pid + " failed: " + out);
      }
      // What the kernel now allows the process (Linux), so a report never claims a pinning that did
      // not happen.
      Path status = Path.of("/proc/" + pid + "/status");
      if (Files.isReadable(status)) {
        String allowed = Files.readAllLines(status).stream()
            .filter(l -> l.startsWith("Cpus_allowed_list:"))
            .map(l -> l.substring("Cpus_allowed_list:".length()).trim())
            .findFirst()
            .orElse("?");
        if (!allowed.equals(cpus)) {
          throw new IllegalStateException(
              "process " + pid + " runs on CPUs " + allowed + " after taskset -a -cp " + cpus);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException(
          "taskset -a -cp " + cpus + " " + pid + ": cannot run taskset (util-linux): " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while pinning " + pid, e);
    }
  }

  public DynomiteCluster cluster() {
    return cluster;
  }

  @Override
  public String describe() {
    return "real Dynomite, " + cluster.racks().size() + " racks x "
        + cluster.nodes().size() / cluster.racks().size() + " nodes, one redis-server per node"
        + (pinnedTo == null ? "" : ", servers pinned to CPU " + pinnedTo);
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

  /** Every node's dynomite and redis-server process (asked again at each read: a fault may restart them). */
  @Override
  public ServerCpu serverCpu() {
    return new ServerCpu(() -> {
      List<ServerCpu.Proc> ps = new ArrayList<>();
      for (DynomiteNode n : cluster.nodes()) {
        String id = "127.0.0.1:" + n.clientPort();
        ps.add(new ServerCpu.Proc("dynomite", "dynomite " + id, n.pid()));
        ps.add(new ServerCpu.Proc(
            "redis",
            "redis-server 127.0.0.1:" + n.redisPort() + " (behind " + id + ")",
            n.redisPid()));
      }
      return ps;
    });
  }

  /** Counters of one node: Dynomite's client reads, client writes, peer requests; its Redis's GET + SET calls. */
  record Raw(
      String node,
      String rack,
      long clientReads,
      long clientWrites,
      long peerRequests,
      Count redisCalls) {}

  @Override
  public ServerCounters<Map<String, Raw>> serverCounters() {
    int racks = cluster.racks().size();
    return new ServerCounters<>() {
      @Override
      public Map<String, Raw> snapshot() {
        return settledSnapshot();
      }

      @Override
      public List<NodeStat> between(
          Map<String, Raw> before, Map<String, Raw> after, ConsistencyLevel consistency) {
        List<NodeStat> out = new ArrayList<>();
        after.forEach((id, a) -> {
          Raw b = before.get(id);
          if (b == null) {
            Count na = Count.na("node " + id + " was not readable before the run");
            out.add(new NodeStat(id, a.rack(), na, na, na, na));
            return;
          }
          long reads = a.clientReads() - b.clientReads();
          long writes = a.clientWrites() - b.clientWrites();
          long peer = a.peerRequests() - b.peerRequests();
          long fwd = peer - writes * (racks - 1);
          Count forwarded;
          if (consistency != ConsistencyLevel.DC_ONE) {
            forwarded = Count.na(
                "at " + consistency + " peer_requests also holds reads sent to other racks");
          } else if (fwd < 0 || fwd > reads + writes) {
            forwarded = Count.na("peer_requests " + peer + " does not fit " + writes + " writes x "
                + (racks - 1) + " other racks + forwarded requests");
          } else {
            forwarded = Count.of(fwd);
          }
          Count redis = a.redisCalls().available() && b.redisCalls().available()
              ? Count.of(a.redisCalls().value() - b.redisCalls().value())
              : (a.redisCalls().available() ? b.redisCalls() : a.redisCalls());
          out.add(new NodeStat(
              id,
              a.rack(),
              Count.na("not counted by the server"),
              Count.of(reads + writes),
              forwarded,
              redis));
        });
        return out;
      }
    };
  }

  /**
   * Reads every node's {@code /info} until two reads more than a stats interval apart agree (so the
   * counters include every request of the run that just ended, replicas to other racks too), then
   * the Redis counters. Bounded: after 40 intervals it returns the last read.
   */
  Map<String, Raw> settledSnapshot() {
    long deadline = System.nanoTime() + statsInterval.multipliedBy(40).toNanos();
    Map<String, Raw> prev = read();
    while (System.nanoTime() < deadline) {
      pause(statsInterval.plusMillis(50));
      Map<String, Raw> cur = read();
      if (sameDynomiteCounters(prev, cur)) {
        return cur;
      }
      prev = cur;
    }
    return prev;
  }

  private static boolean sameDynomiteCounters(Map<String, Raw> a, Map<String, Raw> b) {
    if (!a.keySet().equals(b.keySet())) return false;
    for (Map.Entry<String, Raw> e : a.entrySet()) {
      Raw x = e.getValue();
      Raw y = b.get(e.getKey());
      if (x.clientReads() != y.clientReads()
          || x.clientWrites() != y.clientWrites()
          || x.peerRequests() != y.peerRequests()) {
        return false;
      }
    }
    return true;
  }

  /** The poll interval of {@link #settledSnapshot()}: /info only changes once per stats interval. */
  private static void pause(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading Dynomite's counters", e);
    }
  }

  @SuppressWarnings("unchecked")
  private Map<String, Raw> read() {
    Map<String, Raw> m = new LinkedHashMap<>();
    for (DynomiteNode n : cluster.nodes()) {
      String id = "127.0.0.1:" + n.clientPort();
      Map<String, Object> info;
      try {
        info = JsonIn.parseObject(n.info());
      } catch (RuntimeException e) {
        throw new IllegalStateException(
            "Dynomite node " + id + " (" + n.rack() + "): /info unreadable: " + e.getMessage(), e);
      }
      Map<String, Object> pool = (Map<String, Object>) info.get("dyn_o_mite");
      if (pool == null) {
        throw new IllegalStateException(
            "Dynomite node " + id + ": /info has no dyn_o_mite section: " + info.keySet());
      }
      m.put(
          id,
          new Raw(
              id,
              n.rack(),
              num(pool, "client_read_requests", id),
              num(pool, "client_write_requests", id),
              num(pool, "peer_requests", id),
              RedisCommandStats.getAndSetCalls(n.redisPort())));
    }
    return m;
  }

  private static long num(Map<String, Object> m, String key, String node) {
    Object v = m.get(key);
    if (!(v instanceof Number x)) {
      throw new IllegalStateException(
          "Dynomite node " + node + ": /info has no number " + key + " (got " + v + ")");
    }
    return x.longValue();
  }

  @Override
  public void close() {
    cluster.close();
  }
}
