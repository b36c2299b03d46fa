package io.dyno.core.exec.internal;

import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.exec.DynoEngineMXBean;
import io.dyno.core.health.internal.HealthTracker;
import io.dyno.core.pool.internal.NodePool;
import io.dyno.core.routing.Topology;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What an engine shows people: the text snapshot and the JMX bean that serves it. */
final class EngineReport implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EngineReport.class);
  private static final AtomicInteger MBEAN_SEQ = new AtomicInteger();

  private final Supplier<DynoConfig> config;
  private final PoolRegistry<?> pools;
  private final HealthTracker health;
  private ObjectName mbeanName;

  EngineReport(Supplier<DynoConfig> config, PoolRegistry<?> pools, HealthTracker health) {
    this.config = config;
    this.pools = pools;
    this.health = health;
  }

  /** Nodes of the last topology not marked down by health. */
  int nodesUp() {
    Topology t = pools.seen();
    return t == null ? 0 : Math.max(0, t.hosts().size() - health.downCount());
  }

  /** Topology by rack and token, each node's health and pool, the configuration. */
  String snapshot() {
    StringBuilder sb = new StringBuilder();
    Topology t = pools.seen();
    sb.append("Dyno engine '").append(config.get().applicationName()).append("'");
    if (t == null) {
      sb.append(": no topology yet\n");
    } else {
      sb.append(": topology version ")
          .append(t.version())
          .append(", local rack ")
          .append(t.localRack())
          .append(", local dc ")
          .append(t.localDatacenter())
          .append('\n');
      Map<String, TreeMap<Long, Host>> byRack = new TreeMap<>();
      for (Topology.TokenRange r : t.tokenRanges()) {
        for (Host h : r.replicas()) {
          byRack
              .computeIfAbsent(h.datacenter() + "/" + h.rack(), k -> new TreeMap<>())
              .put(r.endInclusive(), h);
        }
      }
      for (Map.Entry<String, TreeMap<Long, Host>> rack : byRack.entrySet()) {
        sb.append("  rack ").append(rack.getKey()).append('\n');
        for (Map.Entry<Long, Host> e : rack.getValue().entrySet()) {
          Host h = e.getValue();
          NodePool<?> p = pools.poolOf(h);
          sb.append("    token ")
              .append(e.getKey())
              .append("  ")
              .append(h.id())
              .append(health.isUp(h) ? "  UP" : "  DOWN")
              .append(health.state(h).serves() ? "" : " (Dynomite state " + health.state(h) + ")")
              .append(String.format("  score=%.2f", health.score(h)))
              .append(
                  p == null
                      ? "  (no pool)"
                      : "  pool[size=" + p.size() + " active=" + p.active() + " idle=" + p.idle()
                          + " waiters=" + p.waiters() + "]")
              .append('\n');
        }
      }
    }
    sb.append("  configuration:\n");
    config
        .get()
        .describe()
        .forEach((k, v) -> sb.append("    ").append(k).append(" = ").append(v).append('\n'));
    return sb.toString();
  }

  /** Registers {@code io.dyno:type=DynoEngine,name=<app>} (a suffix when the name is taken); logs, never throws. */
  void registerMBean(String app) {
    try {
      var server = ManagementFactory.getPlatformMBeanServer();
      ObjectName name = new ObjectName("io.dyno:type=DynoEngine,name=" + app);
      if (server.isRegistered(name)) {
        name = new ObjectName(
            "io.dyno:type=DynoEngine,name=" + app + "-" + MBEAN_SEQ.incrementAndGet());
      }
      server.registerMBean(
          new StandardMBean(
              new DynoEngineMXBean() {
                @Override
                public String getSnapshot() {
                  return snapshot();
                }

                @Override
                public String getConfiguration() {
                  StringBuilder sb = new StringBuilder();
                  config
                      .get()
                      .describe()
                      .forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
                  return sb.toString();
                }

                @Override
                public int getNodesUp() {
                  return nodesUp();
                }

                @Override
                public int getNodesDown() {
                  return health.downCount();
                }
              },
              DynoEngineMXBean.class,
              true),
          name);
      mbeanName = name;
    } catch (Exception | LinkageError e) {
      log.warn("could not register the Dyno JMX bean: {}", e.toString());
    }
  }

  @Override
  public void close() {
    if (mbeanName != null) {
      try {
        ManagementFactory.getPlatformMBeanServer().unregisterMBean(mbeanName);
      } catch (Exception e) {
        log.debug("could not unregister {}: {}", mbeanName, e.toString());
      }
      mbeanName = null;
    }
  }
}
