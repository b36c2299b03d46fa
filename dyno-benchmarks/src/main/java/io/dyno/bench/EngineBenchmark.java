package io.dyno.bench;

import io.dyno.core.ConsistencyLevel;
import io.dyno.core.FailureKind;
import io.dyno.core.Host;
import io.dyno.core.config.DynoConfig;
import io.dyno.core.engine.internal.DynoEngine;
import io.dyno.core.engine.internal.NodeConnection;
import io.dyno.core.engine.internal.NodeConnectionFactory;
import io.dyno.core.routing.Topology;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
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
 * The whole request path of dyno-core without I/O: route a 16-byte key on a 3-rack x 2-node ring,
 * borrow from the owner's pool, run an operation that answers at once, release, record the
 * {@code dyno.op} sample. Uses only the public engine API, so the same file measures any commit.
 *
 * <p>Run: {@code java -jar dyno-benchmarks/target/benchmarks.jar EngineBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class EngineBenchmark {
  private DynoEngine<Conn> engine;
  private String[] keys;

  /** A connection that needs no server: every operation answers at once. */
  static final class Conn implements NodeConnection {
    private final Host host;

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

  @Setup(Level.Trial)
  public void setUp() {
    Topology topology = RoutingBenchmark.ring("");
    NodeConnectionFactory<Conn> factory = new NodeConnectionFactory<>() {
      @Override
      public Conn open(Host host, Duration connectTimeout, Duration socketTimeout) {
        return new Conn(host);
      }

      @Override
      public FailureKind classify(Throwable failure) {
        return FailureKind.CONNECTION;
      }
    };
    engine = DynoEngine.builder(factory)
        .config(DynoConfig.builder()
            .applicationName("jmh")
            .maxConnsPerHost(16)
            .minConnsPerHost(8)
            .build())
        .topology(() -> topology)
        .registerMBean(false)
        .build();
    keys = new String[1024];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = String.format("user:%011d", i * 7919L);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    engine.close();
  }

  private Object call() {
    String key = keys[ThreadLocalRandom.current().nextInt(keys.length)];
    return engine.execute(engine.call("GET").key(key).idempotent(true).build(), c -> c);
  }

  @Benchmark
  @Threads(1)
  public Object execute_1t() {
    return call();
  }

  @Benchmark
  @Threads(8)
  public Object execute_8t() {
    return call();
  }
}
