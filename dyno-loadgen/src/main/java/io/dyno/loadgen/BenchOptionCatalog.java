package io.dyno.loadgen;

import io.dyno.loadgen.bench.BenchConfig;
import io.dyno.loadgen.bench.Callers;
import io.dyno.loadgen.bench.TracingMode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every option of the load generator's command line, by section in the order {@code --help} shows
 * them: its canonical kebab-case name, value label and help (unit, default, and what 0 means where
 * it means something), and the older spellings still accepted. A bench setting's option is the
 * kebab-case form of its camelCase {@link BenchConfig} name, which stays an alias.
 */
final class BenchOptionCatalog {
  /** Reports go here unless {@code --report-dir} says otherwise: outside any checkout, which a run leaves as it was. */
  static final Path DEFAULT_REPORT_DIR =
      Path.of(System.getProperty("java.io.tmpdir"), "dyno-bench-reports");

  /** One option: canonical name, value label, help, and the {@link BenchConfig} setting it sets (null: the tool's own). */
  record Option(String name, String label, String help, String setting) {}

  static final String COORDINATE = "coordinate";

  /** Marks the settings that may change while a run goes on (explained in the footer). */
  static final String RUNTIME = "[runtime]";

  private static final Map<String, String> DEFAULTS =
      BenchConfig.builder().build().asMap();
  /** Section heading → its options, in the order --help shows them. */
  private static final Map<String, List<Option>> SECTIONS = new LinkedHashMap<>();

  private static final Map<String, Option> BY_NAME = new LinkedHashMap<>();
  /** Older spelling → canonical name. */
  private static final Map<String, String> ALIASES = new LinkedHashMap<>();

  private BenchOptionCatalog() {}

  static {
    String s = "Target and clients";
    tool(
        s,
        "target",
        "<target>",
        "where the load goes: auto | dynomite (starts real Dynomite and redis-server) | "
            + "companion (starts the embedded companion cluster) | describe:<url> (a running cluster's cluster_describe) "
            + "| nodes:<host:port:rack:token>,... (default auto: dynomite when DYNO_DYNOMITE_BINARY names a binary, "
            + "redis-server is on the PATH and --backend is not memory, else companion)");
    tool(
        s,
        "backend",
        "<backend>",
        "datastore behind the companion's nodes: redis | memory | auto (default auto: "
            + "redis when redis-server is on the PATH); real Dynomite always runs in front of redis-server");
    tool(s, "racks", "<n>", "racks of a cluster the tool starts (default 3)");
    tool(s, "nodes-per-rack", "<n>", "nodes per rack of a cluster the tool starts (default 2)");
    tool(
        s,
        "server-cpus",
        "<cpus>",
        "--target dynomite: pin its dynomite and redis-server processes to these CPUs, "
            + "a taskset list such as 1 or 2-3 (default: not pinned)");
    tool(
        s,
        "driver",
        "<driver>",
        "client under load: dyno (the client as built by default, multiplexed) | "
            + "dyno-pooled (Dyno on pooled sockets) | jedis-pools | lettuce | netflix-dyno "
            + "(Netflix Dyno 1.7.2, in a class loader of its own) (default dyno)");
    tool(
        s,
        "pool-size",
        "<n>",
        "connections per node in each client's pool: jedis-pools, dyno-pooled and netflix-dyno "
            + "(its maxConnsPerHost) open up to this many, dyno takes max(this, 256) leases per node on its shared connections; lettuce ignores it, see "
            + "--connections (default max(8, readers + writers + threads))");

    s = "Run";
    tool(
        s,
        "mode",
        "<mode>",
        "load (default): the workload below | replication: the delay between racks, see "
            + "--iterations and the options after it");
    setting(
        s,
        "duration",
        "<duration>",
        "measured run length: 500ms, 10s, 2m, 1h or plain seconds; 0, none or "
            + "endless = until Ctrl-C or POST /stop (default: endless for a single run, 60s for --compare and --autotune)");
    tool(
        s,
        "warmup",
        "<duration>",
        "unrecorded load before each measured run, such as 5s (default 0s = none)");
    tool(
        s,
        "compare",
        "<variants>",
        "compare clients in one run, each a variant driver[:setting=value+...] with the "
            + "camelCase setting names, or redis-benchmark, as in jedis-pools,lettuce,dyno,dyno:pipeline=3-10 "
            + "(default: no comparison, one run with --driver)");
    tool(
        s,
        "rounds",
        "<n>",
        "--compare: interleaved rounds, every variant once per round; the report gives the "
            + "median and the spread (default 1)");
    tool(
        s,
        "autotune",
        "<spec>",
        "raise the rate step by step until the p99 SLA or the error budget breaks, then "
            + "report the highest sustainable rate: start=<ops/s>,factor=<x>,step=<seconds>,sla=<duration>,errors=<fraction> "
            + "(default: off; when on, each part defaults to start=1000,factor=1.5,step=4,sla=5ms,errors=0.001)");
    tool(
        s,
        "fault",
        "<faults>",
        "faults during the run in a cluster the tool started, kind:rack:index@from-to,... "
            + "with index from 0 and times from the start of the run: kill, pause, peers, redis, as in kill:rack1:1@120s-180s "
            + "(default: none)");
    tool(
        s,
        "keep-samples",
        "<n>",
        "per-second samples kept in memory and in the report, the latest ones; at "
            + "least 10 (default 3600 = one hour); totals cover the whole run whatever this is");

    s = "Console, coordination and reports";
    tool(
        s,
        "control-port",
        "<port>",
        "serve the live console and REST API on 127.0.0.1:<port>; 0 = any free port "
            + "(default: no console)");
    tool(
        s,
        COORDINATE,
        "",
        "run only a console that instances register with (--coordinator on each), no load of "
            + "its own; needs --control-port");
    tool(
        s,
        "coordinator",
        "<url>",
        "a coordinator's console URL to register with; it then shows and drives this "
            + "instance; needs --control-port (default: none)");
    tool(
        s,
        "instance-name",
        "<name>",
        "this instance's name at the coordinator (default <HOSTNAME>-<pid>)");
    tool(
        s,
        "settings-file",
        "<file>",
        "a properties file watched every 500 ms for runtime settings, camelCase "
            + "names with or without bench. in front (bench.readRate=5000) (default: none)");
    tool(
        s,
        "report-dir",
        "<dir>",
        "directory the report goes to, created if missing (default " + DEFAULT_REPORT_DIR
            + ", outside the source tree)");
    tool(
        s,
        "report-name",
        "<name>",
        "report file name without extension: <name>.json and <name>.html " + "(default bench)");

    s = "Load";
    setting(
        s, "keys", "<n>", "distinct keys; k and m suffixes allowed (1m = 1000000) (default %s)");
    setting(
        s,
        "valueSize",
        "<bytes>",
        "value size in bytes, or a range min-max drawn uniformly, such as 512-4096 "
            + "(default %s)");
    setting(
        s,
        "valueSizeMax",
        "<bytes>",
        "largest value in bytes; values are uniform in [value-size, this]; "
            + "at most 64 MiB (default: value-size, every value the same size)");
    setting(s, "readers", "<n>", "threads that only read (GET); 0 = none (default %s)");
    setting(s, "writers", "<n>", "threads that only write (SET); 0 = none (default %s)");
    setting(
        s,
        "threads",
        "<n>",
        "mixed threads, each operation a GET with probability read-percent, else a SET; "
            + "0 = none (default %s); readers + writers + threads must be at least 1");
    setting(s, "readPercent", "<percent>", "mixed threads: share of GETs, 0..100 (default %s)");
    setting(
        s, "readRate", "<ops/s>", "GETs per second over all threads; 0 = unlimited (default %s)");
    setting(
        s,
        "writeRate",
        "<ops/s>",
        "SETs per second over all threads; 0 = unlimited (default %s); with mixed "
            + "threads it also bounds their GETs");
    setting(
        s,
        "pipeline",
        "<n|min-max>",
        "commands per pipeline, or a range min-max drawn per pipeline, such as 3-10; "
            + "1 = no pipelining (default 1)");
    setting(s, "pipelineMin", "<n>", "smallest pipeline, in commands (default %s)");
    setting(
        s,
        "pipelineMax",
        "<n>",
        "largest pipeline, in commands, at most 10000; 1 = no pipelining (default %s)");
    setting(
        s,
        "async",
        "<n>",
        "requests kept in flight through the driver's asynchronous API, shared by all "
            + "threads, up to 100000; 0 = off, one blocking call per thread (default %s); not with pipelines");
    setting(
        s,
        "virtualThreads",
        "<n>",
        "blocking callers on virtual threads, up to 1000000, each the loop a mixed "
            + "thread runs (a GET with probability read-percent, else a SET; pipelines too); they replace readers, writers "
            + "and threads, which are not started, and share the pools --pool-size sizes for those; 0 = off (default %s). "
            + "Needs Java 21 or later at run time (refused naming the running Java otherwise); not with async. Callers "
            + "still blocked in a call " + Callers.GRACE.toSeconds()
            + " s after the run ends are counted in the summary "
            + "and the report, not waited for");
    setting(
        s,
        "consistency",
        "<level>",
        "DC_ONE | DC_QUORUM | DC_SAFE_QUORUM | DC_EACH_SAFE_QUORUM; the dyno "
            + "drivers only, the others accept just DC_ONE (default %s)");
    setting(s, "keyPrefix", "<text>", "prefix of every key (default %s)");
    setting(
        s, "backfill", "<true|false>", "write every key once before the measured run (default %s)");
    setting(
        s,
        "backfillThreads",
        "<n>",
        "threads writing the backfill, in pipelines of 100 keys (default %s)");

    s = "Key distribution";
    setting(
        s,
        "distribution",
        "<name>",
        "how keys are picked: uniform | zipfian | hot_set | sliding_window " + "(default uniform)");
    setting(
        s,
        "zipfTheta",
        "<theta>",
        "zipfian: skew, between 0 and 1 exclusive; higher = fewer, hotter keys " + "(default %s)");
    setting(
        s,
        "hotKeysPercent",
        "<percent>",
        "hot_set: share of the keys that are hot, above 0 up to 100 " + "(default %s)");
    setting(
        s,
        "hotAccessPercent",
        "<percent>",
        "hot_set: share of the accesses that go to the hot keys, 0..100 " + "(default %s)");
    setting(
        s,
        "windowSize",
        "<keys>",
        "sliding_window: keys in the window, at most --keys (default %s)");
    setting(
        s,
        "windowSlidePerSecond",
        "<keys/s>",
        "sliding_window: keys the window moves per second; 0 = it " + "stays put (default %s)");

    s = "Client settings (one client each)";
    setting(
        s,
        "hedge",
        "<policy>",
        "dyno drivers: hedged reads, a read unanswered for a while also sent to the next "
            + "replica: off | after:<ms> (fixed wait, fractions allowed) | p99:<minMs> (the node's recent p99, at least "
            + "minMs) (default off)");
    setting(
        s,
        "deadline",
        "<duration>",
        "dyno drivers: deadline of each request, such as 500ms; 0 or none = no "
            + "deadline (default none)");
    setting(
        s,
        "muxConnections",
        "<n>",
        "dyno (multiplexed): shared connections per node and consistency level, "
            + "up to 64; 0 = the client's default, muxConnectionsPerNode (default 0)");
    setting(
        s,
        "muxWrites",
        "<n|default>",
        "dyno (multiplexed): writes awaiting replies per shared connection, "
            + "up to 1024, or default; 0 = no bound (default: the client's muxMaxWritesInFlight)");
    setting(
        s,
        "connections",
        "<n>",
        "lettuce: shared connections per node, up to 64; 0 = the tool's default, 1 "
            + "(default 0); the pools' size is --pool-size");
    StringBuilder modes = new StringBuilder();
    for (TracingMode m : TracingMode.values()) {
      modes
          .append(modes.length() == 0 ? "" : " | ")
          .append(m.label())
          .append(" (")
          .append(m.meaning())
          .append(')');
    }
    setting(
        s,
        "tracing",
        "<mode>",
        "dyno drivers: OpenTelemetry tracing of every call, dyno-opentelemetry's listener "
            + "over the OpenTelemetry SDK, whose spans are counted and dropped in the process, so the figures are the "
            + "client's cost and no exporter's: " + modes
            + "; the overhead in one run: --compare dyno,dyno:tracing=sampled, "
            + "the vs plain column (default %s)");

    s = "Replication delay (--mode replication)";
    tool(s, "write-rack", "<rack>", "rack the keys are written through (default: the first rack)");
    tool(s, "iterations", "<n>", "iterations; 0 = until Ctrl-C or POST /stop (default 5)");
    tool(s, "repl-keys", "<n>", "keys written per iteration (default 1000)");
    tool(
        s,
        "repl-sample",
        "<n>",
        "of those, keys polled in each other rack, 1..repl-keys (default 20)");
    tool(
        s,
        "repl-bound",
        "<duration>",
        "a key not seen in another rack within this counts as never seen " + "(default 5s)");
    tool(s, "repl-gap", "<duration>", "pause between iterations (default 1s)");

    alias("conns", "pool-size");
    alias("server", "target");
  }

  private static void tool(String section, String name, String label, String help) {
    add(section, new Option(name, label, help, null));
  }

  /** A bench setting: its option is the kebab-case name; the camelCase one stays as an alias; %s is its default. */
  private static void setting(String section, String setting, String label, String help) {
    String name = kebab(setting);
    String text =
        help.contains("%s") ? String.format(Locale.ROOT, help, DEFAULTS.get(setting)) : help;
    if (BenchConfig.RUNTIME_SETTINGS.contains(setting)) text += " " + RUNTIME;
    add(section, new Option(name, label, text, setting));
    if (!name.equals(setting)) alias(setting, name);
  }

  private static void add(String section, Option o) {
    SECTIONS.computeIfAbsent(section, k -> new ArrayList<>()).add(o);
    BY_NAME.put(o.name(), o);
  }

  private static void alias(String old, String canonical) {
    ALIASES.put(old, canonical);
  }

  static String kebab(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  /** Every option by canonical name, in --help order. */
  static Map<String, Option> options() {
    return Collections.unmodifiableMap(BY_NAME);
  }

  /** Older spelling → canonical name. */
  static Map<String, String> aliases() {
    return Collections.unmodifiableMap(ALIASES);
  }

  /** Section heading → its options, in --help order. */
  static Map<String, List<Option>> sections() {
    return Collections.unmodifiableMap(SECTIONS);
  }
}
