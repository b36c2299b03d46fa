package io.dyno.loadgen.drivers;

import io.dyno.core.Host;
import io.dyno.loadgen.bench.Driver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

/**
 * What a user without Dyno does: one plain Jedis pool per node and round robin over the nodes,
 * with no idea of tokens. Dynomite forwards each request to the key's owner, so about half of the
 * requests on a 2-node rack take an extra hop. Connections send no {@code CLIENT SETINFO} (Dynomite
 * closes the connection on it) and no HELLO (RESP2 default, protocol left unset).
 */
public final class JedisPoolsDriver implements Driver {
  private final List<JedisPool> pools = new ArrayList<>();
  private final RequestsByNode perNode;
  private final AtomicInteger next = new AtomicInteger();
  private volatile LongConsumer borrowSink = n -> {};
  private volatile boolean closed;

  public JedisPoolsDriver(List<Host> hosts, int maxConnsPerNode, Duration timeout) {
    if (hosts.isEmpty()) {
      throw new IllegalArgumentException("jedis-pools driver: no hosts to connect to");
    }
    this.perNode = new RequestsByNode(hosts);
    for (Host h : hosts) {
      GenericObjectPoolConfig<Jedis> pc = new GenericObjectPoolConfig<>();
      pc.setMaxTotal(maxConnsPerNode);
      pc.setMaxIdle(maxConnsPerNode);
      pc.setMinIdle(0);
      pc.setMaxWait(timeout);
      pc.setJmxEnabled(false);
      pools.add(new JedisPool(pc, new HostAndPort(h.address(), h.port()), clientConfig(timeout)));
    }
  }

  /** Jedis settings Dynomite accepts: no CLIENT SETINFO, no HELLO, no SELECT, no AUTH. */
  public static JedisClientConfig clientConfig(Duration timeout) {
    return DefaultJedisClientConfig.builder()
        .clientSetInfoConfig(ClientSetInfoConfig.DISABLED)
        .autoNegotiateProtocol(false)
        .timeoutMillis((int) timeout.toMillis())
        .build();
  }

  @Override
  public String name() {
    return "jedis-pools";
  }

  private int pick() {
    return Math.floorMod(next.getAndIncrement(), pools.size());
  }

  private Jedis borrow(int i) {
    long t0 = System.nanoTime();
    Jedis j = pools.get(i).getResource();
    borrowSink.accept(System.nanoTime() - t0);
    return j;
  }

  @Override
  public String get(String key) {
    int i = pick();
    perNode.add(i, 1);
    try (Jedis j = borrow(i)) {
      return j.get(key);
    }
  }

  @Override
  public void set(String key, String value) {
    int i = pick();
    perNode.add(i, 1);
    try (Jedis j = borrow(i)) {
      j.set(key, value);
    }
  }

  @Override
  public void pipeline(List<Op> ops) {
    int i = pick();
    perNode.add(i, ops.size());
    try (Jedis j = borrow(i)) {
      Pipeline p = j.pipelined();
      List<Response<?>> rs = new ArrayList<>(ops.size());
      for (Op op : ops) {
        rs.add(op.read() ? p.get(op.key()) : p.set(op.key(), op.value()));
      }
      p.sync();
      for (Response<?> r : rs) {
        r.get(); // throws the error reply, if any
      }
    }
  }

  @Override
  public boolean measuresBorrow() {
    return true;
  }

  @Override
  public void onBorrow(LongConsumer nanos) {
    this.borrowSink = nanos;
  }

  @Override
  public Map<String, Long> requestsByNode() {
    return perNode.snapshot();
  }

  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    pools.forEach(JedisPool::close);
  }
}
