package io.dyno.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * The benchmark JVM's CPU time per operation: process CPU time (all threads: the callers, Netty's
 * event loop, Lettuce's, GC, JIT) over an iteration divided by the operations it measured. Average
 * time at many threads says how long a command waits; this says what it costs the client machine.
 * Use: {@code -prof io.dyno.bench.CpuPerOpProfiler}. The server (a separate process) is not counted.
 */
public final class CpuPerOpProfiler implements InternalProfiler {
  private long cpuAtStart;

  @Override
  public String getDescription() {
    return "client JVM CPU time per operation (process CPU time / operations)";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    cpuAtStart = processCpuNanos();
  }

  @Override
  public Collection<? extends Result> afterIteration(
      BenchmarkParams benchmarkParams, IterationParams iterationParams, IterationResult result) {
    long cpu = processCpuNanos() - cpuAtStart;
    long ops = result.getMetadata().getAllOps();
    double perOp = ops > 0 ? (double) cpu / ops : Double.NaN;
    return List.of(new ScalarResult("cpu.per.op", perOp, "ns/op", AggregationPolicy.AVG));
  }

  private static long processCpuNanos() {
    return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
