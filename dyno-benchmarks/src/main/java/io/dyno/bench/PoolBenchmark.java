package io.dyno.bench;

import com.netflix.spectator.api.DefaultRegistry;
import com.netflix.spectator.api.Timer;
import com.netflix.spectator.api.histogram.PercentileTimer;
import com.zaxxer.hikari.util.ConcurrentBag.IConcurrentBagEntry;
import io.dyno.core.ConsistencyLevel;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.engine.internal.NodeConnection;
import io.dyno.core.engine.internal.NodeConnectionFactory;
import io.dyno.core.metrics.internal.Meters;
import io.dyno.core.pool.internal.ConcurrentBag;
import io.dyno.core.pool.internal.NodePool;
import io.dyno.core.pool.internal.Pooled;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Borrow + return of one connection, pools of 8, with 1 and 8 threads, in one run:
 * <ul>
 *   <li>{@code bag}: Dyno's {@link ConcurrentBag} alone;</li>
 *   <li>{@code hikariBag}: HikariCP 5.1.0's {@code com.zaxxer.hikari.util.ConcurrentBag} alone, the
 *       same 8 entries (the peer Dyno's bag is compared with);</li>
 *   <li>{@code nodePool}: Dyno's whole per-node pool (bag + borrow-delay recording + checks), with a
 *       background thread publishing the counted borrow delays into the Spectator PercentileTimer
 *       once a second, as the engine's maintenance task does ({@code nodePoolCallerOnly}: the same
 *       without the publisher, i.e. the cost on the caller's thread alone);</li>
 *   <li>{@code percentileTimerRecord}: one Spectator PercentileTimer record on a shared timer — what
 *       every borrow cost before (8 threads), and what publishing costs per borrow in the background
 *       (1 thread, uncontended);</li>
 *   <li>{@code commonsPool2}: Apache commons-pool2 {@code GenericObjectPool} (what Jedis pools use);</li>
 *   <li>{@code blockingQueue}: a {@code LinkedBlockingQueue} pool (the original Dyno's design).</li>
 * </ul>
 * Run: {@code java -jar dyno-benchmarks/target/benchmarks.jar PoolBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s}
 * (add {@code -prof gc} to see that no variant of Dyno's allocates per borrow).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PoolBenchmark {
  static final int SIZE = 8;
  static final long TIMEOUT = TimeUnit.SECONDS.toNanos(5);

  static final class Entry extends ConcurrentBag.Entry {}

  /** An entry of HikariCP's bag: its state word, as HikariCP's own PoolEntry keeps it. */
  static final class HikariEntry implements IConcurrentBagEntry {
    private final AtomicInteger state = new AtomicInteger();

    @Override
    public boolean compareAndSet(int expect, int update) {
      return state.compareAndSet(expect, update);
    }

    @Override
    public void setState(int update) {
      state.set(update);
    }

    @Override
    public int getState() {
      return state.get();
    }
  }

  static final class Conn implements NodeConnection {
    final Host host;

    Conn(Host host) {
      this.host = host;
    }

    @Override
    public Host host() {
      return host;
    }

    @Override
    public ConsistencyLevel consistency() {
      return null;
    }

    @Override
    public void setConsistency(ConsistencyLevel level) {}

    @Override
    public void ping() {}

    @Override
    public boolean isBroken() {
      return false;
    }

    @Override
    public void close() {}
  }

  ConcurrentBag<Entry> bag;
  // qualified: clashes with io.dyno.core.pool.internal.ConcurrentBag
  com.zaxxer.hikari.util.ConcurrentBag<HikariEntry> hikariBag;
  NodePool<Conn> nodePool;
  NodePool<Conn> unpublishedPool;
  Thread publisher;
  volatile boolean stop;
  Timer percentileTimer;
  GenericObjectPool<Object> commons;
  LinkedBlockingQueue<Object> queue;

  @Setup
  public void setUp() throws Exception {
    bag = new ConcurrentBag<>(waiting -> {});
    for (int i = 0; i < SIZE; i++) {
      bag.add(new Entry());
    }

    // qualified: clashes with io.dyno.core.pool.internal.ConcurrentBag
    hikariBag = new com.zaxxer.hikari.util.ConcurrentBag<>(waiting -> {});
    for (int i = 0; i < SIZE; i++) {
      hikariBag.add(new HikariEntry());
    }

    Host host = Host.builder("127.0.0.1", 8102).rack("r1").datacenter("dc1").build();
    DynoConfig config = DynoConfig.builder()
        .minConnsPerHost(SIZE)
        .maxConnsPerHost(SIZE)
        .maxTimeoutWhenExhausted(Duration.ofSeconds(5))
        .build();
    NodeConnectionFactory<Conn> factory = new NodeConnectionFactory<>() {
      @Override
      public Conn open(Host h, Duration c, Duration s) {
        return new Conn(h);
      }

      @Override
      public FailureKind classify(Throwable failure) {
        return FailureKind.CONNECTION;
      }
    };
    nodePool = nodePool(host, config, factory);
    unpublishedPool = nodePool(host, config, factory);
    publisher = new Thread(
        () -> {
          while (!stop) {
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
            nodePool.publishMetrics();
          }
        },
        "borrow-delay-publisher");
    publisher.setDaemon(true);
    publisher.start();
    percentileTimer =
        PercentileTimer.builder(new DefaultRegistry()).withName("bench.timer").build();

    commons = new GenericObjectPool<>(new BasePooledObjectFactory<>() {
      @Override
      public Object create() {
        return new Object();
      }

      @Override
      public PooledObject<Object> wrap(Object o) {
        return new DefaultPooledObject<>(o);
      }
    });
    commons.setMaxTotal(SIZE);
    commons.setMaxIdle(SIZE);
    commons.setMinIdle(SIZE);
    commons.setMaxWait(Duration.ofSeconds(5));
    for (int i = 0; i < SIZE; i++) {
      commons.addObject();
    }

    queue = new LinkedBlockingQueue<>();
    for (int i = 0; i < SIZE; i++) {
      queue.add(new Object());
    }
  }

  static NodePool<Conn> nodePool(
      Host host, DynoConfig config, NodeConnectionFactory<Conn> factory) {
    NodePool<Conn> p = new NodePool<>(
        host,
        host,
        factory,
        () -> config,
        Runnable::run,
        System::nanoTime,
        new Meters(new DefaultRegistry(), "bench"),
        new NodePool.Events() {
          @Override
          public void connectFailed(Host h, Throwable cause) {}

          @Override
          public void connected(Host h) {}
        });
    p.fill(SIZE);
    if (p.size() != SIZE) {
      throw new IllegalStateException("pool did not fill: " + p);
    }
    return p;
  }

  @TearDown
  public void tearDown() throws InterruptedException {
    stop = true;
    LockSupport.unpark(publisher);
    publisher.join();
    commons.close();
    hikariBag.close();
    nodePool.close();
    unpublishedPool.close();
  }

  Entry bagCycle() throws InterruptedException {
    Entry e = bag.borrow(TIMEOUT);
    bag.requite(e);
    return e;
  }

  HikariEntry hikariCycle() throws InterruptedException {
    HikariEntry e = hikariBag.borrow(TIMEOUT, TimeUnit.NANOSECONDS);
    hikariBag.requite(e);
    return e;
  }

  Pooled<Conn> poolCycle() {
    Pooled<Conn> p = nodePool.borrow(TIMEOUT);
    nodePool.release(p);
    return p;
  }

  Pooled<Conn> unpublishedCycle() {
    Pooled<Conn> p = unpublishedPool.borrow(TIMEOUT);
    unpublishedPool.release(p);
    return p;
  }

  Object commonsCycle() throws Exception {
    Object o = commons.borrowObject();
    commons.returnObject(o);
    return o;
  }

  Object queueCycle() throws InterruptedException {
    Object o = queue.poll(TIMEOUT, TimeUnit.NANOSECONDS);
    queue.offer(o);
    return o;
  }

  @Benchmark
  @Threads(1)
  public Object bag_1t() throws Exception {
    return bagCycle();
  }

  @Benchmark
  @Threads(8)
  public Object bag_8t() throws Exception {
    return bagCycle();
  }

  @Benchmark
  @Threads(1)
  public Object hikariBag_1t() throws Exception {
    return hikariCycle();
  }

  @Benchmark
  @Threads(8)
  public Object hikariBag_8t() throws Exception {
    return hikariCycle();
  }

  @Benchmark
  @Threads(1)
  public Object nodePool_1t() {
    return poolCycle();
  }

  @Benchmark
  @Threads(8)
  public Object nodePool_8t() {
    return poolCycle();
  }

  @Benchmark
  @Threads(1)
  public Object nodePoolCallerOnly_1t() {
    return unpublishedCycle();
  }

  @Benchmark
  @Threads(8)
  public Object nodePoolCallerOnly_8t() {
    return unpublishedCycle();
  }

  @Benchmark
  @Threads(1)
  public void percentileTimerRecord_1t() {
    percentileTimer.record(1, TimeUnit.NANOSECONDS);
  }

  @Benchmark
  @Threads(8)
  public void percentileTimerRecord_8t() {
    percentileTimer.record(1, TimeUnit.NANOSECONDS);
  }

  @Benchmark
  @Threads(1)
  public Object commonsPool2_1t() throws Exception {
    return commonsCycle();
  }

  @Benchmark
  @Threads(8)
  public Object commonsPool2_8t() throws Exception {
    return commonsCycle();
  }

  @Benchmark
  @Threads(1)
  public Object blockingQueue_1t() throws Exception {
    return queueCycle();
  }

  @Benchmark
  @Threads(8)
  public Object blockingQueue_8t() throws Exception {
    return queueCycle();
  }
}
