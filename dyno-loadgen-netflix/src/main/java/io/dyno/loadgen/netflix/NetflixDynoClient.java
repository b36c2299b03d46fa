package io.dyno.loadgen.netflix;

import com.netflix.dyno.connectionpool.Host;
import com.netflix.dyno.connectionpool.HostBuilder;
import com.netflix.dyno.connectionpool.HostConnectionStats;
import com.netflix.dyno.connectionpool.impl.ConnectionPoolConfigurationImpl;
import com.netflix.dyno.connectionpool.impl.lb.AbstractTokenMapSupplier;
import com.netflix.dyno.jedis.DynoJedisClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.json.simple.JSONValue;

/**
 * Netflix Dyno's {@code DynoJedisClient}, built as its users build it for a known cluster: a static
 * host supplier and a token map supplier serving Dynomite-manager's {@code cluster_describe}
 * document. This class lives in the load generator's class loader for Netflix Dyno, so what it
 * takes and gives are JDK types only; dyno-loadgen reaches it by name ({@code
 * io.dyno.loadgen.drivers.NetflixDynoDriver}).
 */
public final class NetflixDynoClient implements AutoCloseable {
  private final DynoJedisClient client;
  private boolean closed;

  private NetflixDynoClient(DynoJedisClient client) {
    this.client = client;
  }

  /**
   * Builds and starts the client (it opens its connections to every node here).
   *
   * @param nodes one entry per node in Dynomite-manager's shape, every value a string: {@code
   *     token}, {@code hostname} (unique within its rack), {@code ip}, {@code port} (the client
   *     port), {@code zone} (the rack) and {@code dc} (a prefix of every rack name)
   */
  public static NetflixDynoClient open(
      String cluster,
      List<Map<String, String>> nodes,
      String localRack,
      String datacenter,
      int maxConnsPerHost,
      int timeoutMillis) {
    List<Host> hosts = new ArrayList<>();
    for (Map<String, String> n : nodes) {
      hosts.add(new HostBuilder()
          .setHostname(n.get("hostname"))
          .setIpAddress(n.get("ip"))
          .setPort(Integer.parseInt(n.get("port")))
          .setRack(n.get("zone"))
          .setDatacenter(n.get("dc"))
          .setStatus(Host.Status.Up)
          .createHost());
    }
    String topology = JSONValue.toJSONString(nodes);
    AbstractTokenMapSupplier tokens = tokenSupplier(topology, localRack, datacenter);
    ConnectionPoolConfigurationImpl pool = new ConnectionPoolConfigurationImpl(cluster)
        .setLocalRack(localRack)
        .setLocalDataCenter(datacenter)
        .withTokenSupplier(tokens)
        .setMaxConnsPerHost(maxConnsPerHost)
        .setConnectTimeout(timeoutMillis)
        .setSocketTimeout(timeoutMillis);
    return new NetflixDynoClient(new DynoJedisClient.Builder()
        .withApplicationName("dyno-loadgen")
        .withDynomiteClusterName(cluster)
        .withHostSupplier(() -> hosts)
        .withCPConfig(pool)
        .build());
  }

  /**
   * Serves {@code topology} for every host. The supplier keeps the token map's entries of its
   * datacenter, which it reads once, here, from {@code LOCAL_DATACENTER} (the environment, else
   * the system property), as its users deploy it: the property is set for that moment.
   */
  private static AbstractTokenMapSupplier tokenSupplier(
      String topology, String localRack, String datacenter) {
    String key = "LOCAL_DATACENTER";
    String before = System.getProperty(key);
    System.setProperty(key, datacenter);
    try {
      return new AbstractTokenMapSupplier(localRack) {
        @Override
        public String getTopologyJsonPayload(Set<Host> activeHosts) {
          return topology;
        }

        @Override
        public String getTopologyJsonPayload(String hostname) {
          return topology;
        }
      };
    } finally {
      if (before == null) System.clearProperty(key);
      else System.setProperty(key, before);
    }
  }

  public String get(String key) {
    return client.get(key);
  }

  public void set(String key, String value) {
    client.set(key, value);
  }

  /** Operations each node answered or failed so far, by {@code ip:port}, as the client counts them. */
  public Map<String, Long> operationsByNode() {
    Map<String, Long> out = new LinkedHashMap<>();
    for (Map.Entry<Host, HostConnectionStats> e :
        client.getConnPool().getMonitor().getHostStats().entrySet()) {
      HostConnectionStats s = e.getValue();
      out.merge(
          e.getKey().getHostAddress() + ":" + e.getKey().getPort(),
          s.getOperationSuccessCount() + s.getOperationErrorCount(),
          Long::sum);
    }
    return out;
  }

  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    client.stopClient();
  }
}
