package io.dyno.bench;

import io.dyno.core.Host;
import io.dyno.core.HostToken;
import io.dyno.core.routing.KeyHasher;
import io.dyno.core.routing.TokenRingTopology;
import io.dyno.core.routing.Topology;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Key → ordered replicas on a 3-rack × 2-node ring (one datacenter, client in rack r1): Dynomite
 * murmur hash of a 16-byte key, then the ring lookup. Expected: tens of ns and no allocation.
 *
 * <p>Run: {@code java -jar dyno-benchmarks/target/benchmarks.jar RoutingBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RoutingBenchmark {

  /** Hash tag configured on the cluster ("" = none); the keys below carry no tag either way. */
  @Param({"", "{}"})
  public String hashtag;

  private Topology topology;
  private String[] stringKeys;
  private byte[][] byteKeys;
  private int next;

  /** The ring every routing benchmark uses: 3 racks x 2 nodes (tokens 0 and 2^31-1), local rack r1. */
  static Topology ring(String hashtag) {
    List<HostToken> tokens = new ArrayList<>();
    int n = 1;
    for (String rack : List.of("r1", "r2", "r3")) {
      for (long token : new long[] {0L, 2147483647L}) {
        Host h = Host.builder("10.0.0." + n, 8102)
            .ipAddress("10.0.0." + n)
            .datacenter("dc1")
            .rack(rack)
            .build();
        tokens.add(new HostToken(token, h));
        n++;
      }
    }
    return TokenRingTopology.builder()
        .tokens(tokens)
        .localRack("r1")
        .localDatacenter("dc1")
        .hasher(KeyHasher.forHashtag(hashtag))
        .build();
  }

  @Setup
  public void setUp() {
    topology = ring(hashtag);
    // 1024 distinct 16-byte ASCII keys so lookups hit both segments and every rotation
    stringKeys = new String[1024];
    byteKeys = new byte[1024][];
    for (int i = 0; i < stringKeys.length; i++) {
      stringKeys[i] = String.format("user:%011d", i * 7919L);
      byteKeys[i] = stringKeys[i].getBytes(StandardCharsets.UTF_8);
      if (byteKeys[i].length != 16)
        throw new IllegalStateException("key must be 16 bytes: " + stringKeys[i]);
    }
  }

  @Benchmark
  public List<Host> stringKey() {
    return topology.replicas(stringKeys[next++ & 1023]);
  }

  @Benchmark
  public List<Host> byteKey() {
    return topology.replicas(byteKeys[next++ & 1023]);
  }

  /** The hash alone (hash tag applied), for comparison. */
  @Benchmark
  public long hashOfByteKey() {
    return topology.hasher().hash(byteKeys[next++ & 1023]);
  }

  /** The hash alone of the String key (hash tag applied), for comparison. */
  @Benchmark
  public long hashOfStringKey() {
    return topology.hasher().hash(stringKeys[next++ & 1023]);
  }

  /** What a client without an allocation-free string hash would do: encode, then hash (allocates). */
  @Benchmark
  public List<Host> stringKeyViaGetBytes() {
    return topology.replicas(stringKeys[next++ & 1023].getBytes(StandardCharsets.UTF_8));
  }

  /** Calibration for this machine: the JDK's own hash over the same 16 bytes (16 dependent multiply-adds). */
  @Benchmark
  public int baselineArraysHashCode() {
    return Arrays.hashCode(byteKeys[next++ & 1023]);
  }

  /** The ring lookup alone, for a precomputed hash. */
  @Benchmark
  public List<Host> hashOnly() {
    return topology.replicas((long) (next++ & 1023) * 4_194_301L);
  }
}
