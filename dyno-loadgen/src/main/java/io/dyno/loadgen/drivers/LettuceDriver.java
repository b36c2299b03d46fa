package io.dyno.loadgen.drivers;

import io.dyno.core.Host;
import io.dyno.loadgen.bench.Driver;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.DriverInfo;
import io.lettuce.core.MaintNotificationsConfig;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lettuce as a user would point it at Dynomite: one multiplexed connection per node (Lettuce
 * shares a connection between threads), round robin over the nodes, not token-aware.
 * Configured for Dynomite: RESP2 (no HELLO), no client name, empty library name and version (so no
 * {@code CLIENT SETINFO}), maintenance notifications off (no {@code CLIENT MAINT_NOTIFICATIONS}).
 */
public final class LettuceDriver implements Driver {
  private final List<Host> hosts;
  private final ClientResources resources;
  private final List<RedisClient> clients = new ArrayList<>();
  private final List<StatefulRedisConnection<String, String>> conns = new ArrayList<>();
  private final RequestsByNode perNode;
  private final AtomicInteger next = new AtomicInteger();
  private final Duration timeout;
  private volatile boolean closed;

  public LettuceDriver(List<Host> hosts, int connectionsPerNode, Duration timeout) {
    if (hosts.isEmpty()) {
      throw new IllegalArgumentException("lettuce driver: no hosts to connect to");
    }
    this.hosts = List.copyOf(hosts);
    this.timeout = timeout;
    this.resources = DefaultClientResources.builder()
        .ioThreadPoolSize(2)
        .computationThreadPoolSize(2)
        .build();
    this.perNode = new RequestsByNode(hosts);
    try {
      for (Host h : hosts) {
        RedisURI uri = RedisURI.builder()
            .withHost(h.address())
            .withPort(h.port())
            .withTimeout(timeout)
            .build();
        uri.setDriverInfo(DriverInfo.builder().name("").build());
        uri.setLibraryVersion("");
        RedisClient c = RedisClient.create(resources, uri);
        c.setOptions(clientOptions());
        clients.add(c);
      }
      for (int k = 0; k < connectionsPerNode; k++) {
        for (RedisClient c : clients) {
          conns.add(c.connect());
        }
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Client options Dynomite accepts. */
  public static ClientOptions clientOptions() {
    return ClientOptions.builder()
        .protocolVersion(ProtocolVersion.RESP2)
        .maintNotificationsConfig(MaintNotificationsConfig.disabled())
        .timeoutOptions(TimeoutOptions.enabled()) // the URI's timeout bounds async commands too
        .build();
  }

  @Override
  public String name() {
    return "lettuce";
  }

  private StatefulRedisConnection<String, String> pick() {
    int i = Math.floorMod(next.getAndIncrement(), conns.size());
    perNode.add(i % hosts.size(), 1);
    return conns.get(i);
  }

  @Override
  public String get(String key) {
    return pick().sync().get(key);
  }

  @Override
  public void set(String key, String value) {
    pick().sync().set(key, value);
  }

  @Override
  public boolean supportsAsync() {
    return true;
  }

  /** Lettuce's own asynchronous command on the next shared connection. */
  @Override
  public CompletableFuture<String> getAsync(String key) {
    return pick().async().get(key).toCompletableFuture();
  }

  @Override
  public CompletableFuture<String> setAsync(String key, String value) {
    return pick().async().set(key, value).toCompletableFuture();
  }

  @Override
  public void pipeline(List<Op> ops) throws Exception {
    int i = Math.floorMod(next.getAndIncrement(), conns.size());
    perNode.add(i % hosts.size(), ops.size());
    var async = conns.get(i).async();
    List<RedisFuture<String>> fs = new ArrayList<>(ops.size());
    for (Op op : ops) {
      fs.add(op.read() ? async.get(op.key()) : async.set(op.key(), op.value()));
    }
    for (RedisFuture<String> f : fs) {
      f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public Map<String, Long> requestsByNode() {
    return perNode.snapshot();
  }

  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    conns.forEach(c -> {
      try {
        c.close();
      } catch (RuntimeException ignored) {
        /* closing anyway */
      }
    });
    clients.forEach(c -> c.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
