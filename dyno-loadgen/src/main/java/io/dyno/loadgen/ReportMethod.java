package io.dyno.loadgen;

import io.dyno.loadgen.bench.BenchConfig;
import io.dyno.loadgen.bench.Callers;
import io.dyno.loadgen.target.Target;
import java.util.LinkedHashMap;
import java.util.Map;

/** The report's "method": how the numbers were made, written out beside them. */
final class ReportMethod {
  private ReportMethod() {}

  /** Instance, cluster, threads, payload, keys, read/write ratio, run length, pipeline, consistency. */
  static Map<String, Object> of(BenchConfig c, Target t) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(
        "instance",
        Runtime.getRuntime().availableProcessors() + " cores, " + System.getProperty("os.name")
            + " " + System.getProperty("os.arch") + ", Java " + Runtime.version()
            + ", one machine, loopback, shared with other builds");
    m.put("cluster", t.describe());
    m.put("threads", Callers.describe(c));
    m.put(
        "payload",
        c.valueSize == c.valueSizeMax
            ? c.valueSize + " bytes"
            : c.valueSize + ".." + c.valueSizeMax + " bytes");
    m.put("keys", c.keys + " (" + c.distribution.name().toLowerCase() + ")");
    m.put(
        "readWriteRatio",
        c.threads > 0 || c.virtualThreads > 0
            ? c.readPercent + "% GET / " + (100 - c.readPercent) + "% SET"
            : "reader/writer threads");
    m.put(
        "runLength",
        c.endless()
            ? "endless (until stopped), after one backfill; settings may change during the run (see events)"
            : c.duration.toMillis() / 1000.0 + " s measured per run, after one backfill");
    m.put("pipeline", c.pipelined() ? c.pipelineMin + ".." + c.pipelineMax + " commands" : "none");
    m.put("consistency", c.consistency.name());
    return m;
  }
}
