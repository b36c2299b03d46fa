package io.dyno.loadgen.drivers;

import io.dyno.core.HostToken;
import io.dyno.loadgen.bench.Driver;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Netflix Dyno 1.7.2 ({@code com.netflix.dyno:dyno-jedis}), the client Dyno replaces: token- and
 * rack-aware, a blocking Jedis 3 socket per call from a pool per node. It runs in a class loader of
 * its own ({@link NetflixDynoClassPath}) and is reached through the adapter that module
 * dyno-loadgen-netflix compiles against it ({@code io.dyno.loadgen.netflix.NetflixDynoClient}),
 * bound once into method handles. Configured as its users configure it for a known cluster: a
 * static host supplier and token map ({@link NetflixDynoTopology}), the local rack, {@code
 * maxConnsPerHost} = the pool size the other pooled drivers get, connect and socket timeouts =
 * the bench's request timeout; everything else its defaults.
 */
public final class NetflixDynoDriver implements Driver {
  static final String CLIENT_CLASS = "io.dyno.loadgen.netflix.NetflixDynoClient";

  private final MethodHandle get;
  private final MethodHandle set;
  private final MethodHandle operationsByNode;
  private final MethodHandle close;
  private final String settings;
  private boolean closed;

  /**
   * Starts the client (it connects to every node here).
   *
   * @param tokens the cluster's token map, every node with its rack
   * @throws IllegalArgumentException when the cluster cannot be given to Netflix Dyno, or its
   *     class path is not built
   */
  public NetflixDynoDriver(
      List<HostToken> tokens, String localRack, int maxConnsPerHost, Duration timeout) {
    NetflixDynoTopology topology = NetflixDynoTopology.of(tokens);
    ClassLoader loader = NetflixDynoClassPath.loader();
    MethodHandles.Lookup lookup = MethodHandles.publicLookup();
    Object client;
    Thread me = Thread.currentThread();
    ClassLoader before = me.getContextClassLoader();
    // Netflix Dyno's libraries (log4j, archaius, servo) look things up through the context loader.
    me.setContextClassLoader(loader);
    try {
      Class<?> type = Class.forName(CLIENT_CLASS, true, loader);
      MethodHandle open = lookup.findStatic(
          type,
          "open",
          MethodType.methodType(
              type, String.class, List.class, String.class, String.class, int.class, int.class));
      client = open.invoke(
          "dyno-loadgen", topology.nodes(), localRack, topology.datacenter(), maxConnsPerHost, (int)
              timeout.toMillis());
      get = bind(lookup, type, client, "get", MethodType.methodType(String.class, String.class));
      set = bind(
          lookup,
          type,
          client,
          "set",
          MethodType.methodType(void.class, String.class, String.class));
      operationsByNode =
          bind(lookup, type, client, "operationsByNode", MethodType.methodType(Map.class));
      close = bind(lookup, type, client, "close", MethodType.methodType(void.class));
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new IllegalStateException("driver netflix-dyno: cannot start Netflix Dyno: " + e, e);
    } finally {
      me.setContextClassLoader(before);
    }
    settings = "Netflix Dyno 1.7.2 (Jedis 3.0.1) in its own class loader; maxConnsPerHost "
        + maxConnsPerHost + ", local rack " + localRack + ", datacenter "
        + topology.datacenter() + ", timeouts " + timeout.toMillis() + " ms";
  }

  private static MethodHandle bind(
      MethodHandles.Lookup lookup, Class<?> type, Object client, String name, MethodType mt)
      throws ReflectiveOperationException {
    return lookup.findVirtual(type, name, mt).bindTo(client);
  }

  @Override
  public String name() {
    return "netflix-dyno";
  }

  @Override
  public String get(String key) throws Exception {
    try {
      return (String) get.invokeExact(key);
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  @Override
  public void set(String key, String value) throws Exception {
    try {
      set.invokeExact(key, value);
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /** Refused: Netflix Dyno binds a pipeline to its first key's node, and the bench's batches mix keys. */
  @Override
  public void pipeline(List<Op> ops) {
    throw new UnsupportedOperationException(pipelinesRefused());
  }

  @Override
  public boolean supportsPipelines() {
    return false;
  }

  static String pipelinesRefused() {
    return "driver netflix-dyno has no pipelines here: Netflix Dyno binds a pipeline to the node"
        + " of its first key (every key must share that owner), and the bench's batches mix keys";
  }

  /** Operations sent to each node ({@code address:port}), as Netflix Dyno's pool monitor counts them. */
  @Override
  @SuppressWarnings("unchecked")
  public Map<String, Long> requestsByNode() {
    try {
      return (Map<String, Long>) operationsByNode.invokeExact();
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  @Override
  public Map<String, String> summary() {
    return Map.of("client", settings);
  }

  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    try {
      close.invokeExact();
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }
}
